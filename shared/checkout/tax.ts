import { formatBasisPoints, percentOfPence } from './money';
import { vatRateBasisPoints } from './vat-rates';

/** What a tax calculation needs: the buyer's country and the net subtotal of the order. */
export interface TaxInput {
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  /** Net subtotal in pence. */
  subtotalPence: number;
}

/** The VAT of one order. */
export interface TaxResult {
  /** The rate applied, as a percentage string ("20", "25.5", "0"). */
  rate: string;
  /** The VAT in pence, on the subtotal, rounded half-up to the penny. */
  taxPence: number;
}

/**
 * The port through which checkout computes VAT. The rate-table adapter below is the default;
 * a Stripe Tax adapter can take its place without touching the checkout domain. Any error
 * it throws is answered as 502 `tax_fail`.
 */
export interface TaxCalculator {
  calculate(input: TaxInput): Promise<TaxResult>;
}

/**
 * VAT from the dated rate table in ./vat-rates.ts: the rate of the buyer's country applied
 * once to the order's subtotal and rounded half-up to the penny.
 */
export const rateTableTaxCalculator = (): TaxCalculator => ({
  calculate: async ({ country, subtotalPence }) => {
    const basisPoints = vatRateBasisPoints(country);
    return { rate: formatBasisPoints(basisPoints), taxPence: percentOfPence(subtotalPence, basisPoints) };
  },
});
