/** The seller as printed on every invoice. */
export interface Seller {
  name: string;
  /** Postal address, one line per entry. */
  address: string[];
  /** VAT registration number. */
  vatNumber: string;
  companyNumber: string;
  email: string;
}

/**
 * The seller's details for invoices: configuration constants, changed here (and deployed)
 * when the company's details change. Placeholders until the real ones are supplied.
 */
export const seller: Seller = {
  name: 'SIM Services Ltd',
  address: ['1 Example Street', 'London', 'EC1A 1AA', 'United Kingdom'],
  vatNumber: 'GB 123 4567 89',
  companyNumber: '01234567',
  email: 'accounts@sim-services.example',
};
