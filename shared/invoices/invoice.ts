import type { OrderAddress, OrderItem } from '../db/items';
import { seller as defaultSeller, type Seller } from './seller';

/** One line of an invoice; amounts are GBP decimal strings, net of VAT. */
export interface InvoiceLine {
  description: string;
  quantity: number;
  unitPrice: string;
  lineTotal: string;
}

/** Everything an invoice shows. */
export interface Invoice {
  number: string;
  orderId: string;
  /** YYYY-MM-DD. */
  issueDate: string;
  seller: Seller;
  buyer: {
    company: string;
    contactName?: string;
    email: string;
    address: string[];
    vatNumber?: string;
    registrationNumber?: string;
  };
  lines: InvoiceLine[];
  currency: 'GBP';
  net: string;
  /** Percentage string ("20"). */
  vatRate: string;
  vat: string;
  total: string;
}

/** An address as printed, one line per entry (empty fields left out). */
export const addressLines = (address: OrderAddress | undefined): string[] =>
  address
    ? [address.name, address.line1, address.line2, address.city, address.region, address.postal_code, address.country].filter(
        (line): line is string => typeof line === 'string' && line.trim() !== '',
      )
    : [];

/** The buyer's full name of a B3 order (first + last), or customer_name of the others. */
export const buyerName = (order: OrderItem): string | undefined => {
  const full = [order.customer_first_name, order.customer_last_name].filter(Boolean).join(' ');
  return full !== '' ? full : order.customer_name;
};

/** The invoice number of an order: one invoice per order, so it is derived from the order id. */
export const invoiceNumber = (orderId: string): string => `INV-${orderId}`;

/**
 * The invoice of a paid order (B3): the seller, the buyer's company (company_name, falling
 * back to the buyer's name), billing address, VAT and registration numbers, the priced lines,
 * net, VAT and total exactly as the order was charged, dated the day of payment.
 */
export const invoiceOf = (order: OrderItem, issuedAt: Date, seller: Seller = defaultSeller): Invoice => ({
  number: invoiceNumber(order.id),
  orderId: order.id,
  issueDate: issuedAt.toISOString().slice(0, 10),
  seller,
  buyer: {
    company: order.company_name ?? buyerName(order) ?? order.customer_email,
    contactName: buyerName(order),
    email: order.customer_email,
    address: addressLines(order.billing_address ? { ...order.billing_address, name: undefined } : undefined),
    vatNumber: order.vat_registration_number,
    registrationNumber: order.company_registration_number,
  },
  lines: order.lines.map((line) => ({
    description: `${line.name} (${line.sku})`,
    quantity: line.quantity,
    unitPrice: line.unit_price,
    lineTotal: line.line_total,
  })),
  currency: 'GBP',
  net: order.subtotal,
  vatRate: order.vat_rate,
  vat: order.tax_amount,
  total: order.amount_total,
});
