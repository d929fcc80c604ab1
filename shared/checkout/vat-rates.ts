/**
 * VAT rates by buyer country, for a seller established in the United Kingdom whose catalog
 * prices are net of VAT.
 *
 * Source: European Commission, DG TAXUD, "VAT rates applied in the Member States of the
 * European Union" (taxation-customs.ec.europa.eu), with the changes announced since:
 * Finland 25.5% from 2024-09-01, Slovakia 23% from 2025-01-01, Estonia 24% from 2025-07-01,
 * Romania 21% from 2025-08-01. United Kingdom: HMRC, standard rate 20%.
 * Cross-checked against the data of the `sales-tax` npm package 2.23.0 (released
 * 2026-05-19), which lists the same 28 rates. Update `asOf` with every change.
 *
 * Rates are basis points (1/100 of a percent) so that 25.5% stays an exact integer.
 */
export const vatRates = {
  /** The date the table was last checked against its source. */
  asOf: '2026-05-19',
  source:
    'European Commission DG TAXUD, "VAT rates applied in the Member States of the European Union"; HMRC for GB; cross-checked with sales-tax@2.23.0',
  /** The United Kingdom: the seller's own country. */
  unitedKingdom: { GB: 2000 } as Readonly<Record<string, number>>,
  /** Standard rates of the 27 EU member states. */
  europeanUnion: {
    AT: 2000, BE: 2100, BG: 2000, HR: 2500, CY: 1900, CZ: 2100, DK: 2500, EE: 2400, FI: 2550,
    FR: 2000, DE: 1900, GR: 2400, HU: 2700, IE: 2300, IT: 2200, LV: 2100, LT: 2100, LU: 1700,
    MT: 1800, NL: 2100, PL: 2300, PT: 2300, RO: 2100, SK: 2300, SI: 2200, ES: 2100, SE: 2500,
  } as Readonly<Record<string, number>>,
} as const;

/**
 * The VAT rate in basis points for a buyer in `country` (ISO 3166-1 alpha-2, upper case):
 * GB 20%, an EU member state its standard rate, any other country 0% (own entries only: a
 * `constructor` is another country).
 */
export const vatRateBasisPoints = (country: string): number =>
  (Object.hasOwn(vatRates.unitedKingdom, country) ? vatRates.unitedKingdom[country] : undefined) ??
  (Object.hasOwn(vatRates.europeanUnion, country) ? vatRates.europeanUnion[country] : undefined) ??
  0;
