import type { HeldStockUnit, OrderItem } from '../db/items';
import { addressLines, buyerName, invoiceNumber } from '../invoices/invoice';
import type { AppliedTopup, ProvisionedEsim } from './devices';

/** What an order provisioned, for the texts. */
export interface Provisioned {
  esims: ProvisionedEsim[];
  topups: AppliedTopup[];
  /** B2: the SIMs assigned to the order, awaiting dispatch. */
  units: HeldStockUnit[];
}

const money = (amount: string) => `\u00a3${amount}`;

/** The last four digits of an ICCID, as SMS texts show it. */
const lastDigits = (iccid: string) => iccid.slice(-4);

/** The short order reference of SMS texts (the id's first block). */
export const shortOrderId = (orderId: string) => orderId.slice(0, 8);

const priceLines = (order: OrderItem): string[] => [
  ...order.lines.map(
    (line) =>
      `  ${line.quantity} x ${line.name} (${line.sku})${line.topup_iccid ? ` for eSIM ${line.topup_iccid}` : ''}: ` +
      `${money(line.unit_price)} each, ${money(line.line_total)}`,
  ),
  '',
  `  Subtotal:  ${money(order.subtotal)}`,
  `  VAT (${order.vat_rate}%):  ${money(order.tax_amount)}`,
  `  Total paid:  ${money(order.amount_total)} (GBP)`,
];

/** The receipt e-mail's subject. */
export const receiptSubject = (order: OrderItem) => `Your receipt for order ${order.id}`;

/**
 * The receipt e-mail's text, per endpoint: the priced lines and totals, then B1 the eSIMs
 * (with how to install them) and top-ups, B2 the shipping address and what happens next,
 * B3 that the invoice follows separately and the contract is set up by hand.
 */
export const receiptText = (order: OrderItem, provisioned: Provisioned, paidAt: Date): string => {
  const name = buyerName(order);
  const paragraphs: string[] = [
    `Hello${name ? ` ${name}` : ''},`,
    'thank you for your order. We have received your payment.',
    [`Order: ${order.id}`, `Date: ${paidAt.toISOString().slice(0, 10)}`, '', ...priceLines(order)].join('\n'),
  ];
  if (order.endpoint === 'esim') {
    if (provisioned.esims.length > 0) {
      paragraphs.push(
        [
          'Your eSIMs:',
          ...provisioned.esims.map((esim) => `  ${esim.iccid}: ${esim.planName}`),
          '',
          'To install an eSIM, open your account on our website and choose "Install eSIM" next to its number.',
        ].join('\n'),
      );
    }
    if (provisioned.topups.length > 0) {
      paragraphs.push(['Top-ups added:', ...provisioned.topups.map((topup) => `  ${topup.planName} on eSIM ${topup.iccid}`)].join('\n'));
    }
  } else if (order.endpoint === 'physical') {
    paragraphs.push(
      [
        'We will post your SIM card(s) to:',
        ...addressLines(order.shipping_address).map((line) => `  ${line}`),
        '',
        'A member of our team picks and posts your order; you will hear from us when it is on its way.',
      ].join('\n'),
    );
  } else {
    paragraphs.push(
      [
        `Company: ${order.company_name ?? name ?? order.customer_email}`,
        `Your invoice (${invoiceNumber(order.id)}) follows in a separate e-mail.`,
        'The price covers the SIM cost and the first month. We will contact you to set up your contract;',
        'later months are invoiced separately.',
      ].join('\n'),
    );
  }
  paragraphs.push('Kind regards,\nThe SIM team');
  return `${paragraphs.join('\n\n')}\n`;
};

/** The invoice e-mail's subject. */
export const invoiceSubject = (order: OrderItem) => `Invoice ${invoiceNumber(order.id)} for order ${order.id}`;

/** The invoice e-mail's text (the PDF is attached). */
export const invoiceText = (order: OrderItem): string =>
  [
    `Hello${buyerName(order) ? ` ${buyerName(order)}` : ''},`,
    '',
    `please find attached invoice ${invoiceNumber(order.id)} for order ${order.id} (${money(order.amount_total)}, paid in full).`,
    '',
    'Kind regards,',
    'The SIM team',
    '',
  ].join('\n');

/** The B1 SMS: activation when the order brought new eSIMs, else the top-up confirmation (at most 160 characters). */
export const esimSmsText = (order: OrderItem, provisioned: Provisioned): string => {
  const reference = shortOrderId(order.id);
  if (provisioned.esims.length > 0) {
    const count = provisioned.esims.length;
    return `Your ${count === 1 ? 'eSIM is' : `${count} eSIMs are`} ready (order ${reference}). Install from your account; the steps are in your receipt e-mail.`;
  }
  const devices = [...new Set(provisioned.topups.map((topup) => lastDigits(topup.iccid)))];
  return `Your top-up is active on eSIM ending ${devices.join(', ')} (order ${reference}). Thank you!`;
};

/** The B3 SMS receipt (at most 160 characters). */
export const iotSmsText = (order: OrderItem): string =>
  `Payment of ${money(order.amount_total)} received for order ${shortOrderId(order.id)}. Your receipt and invoice are on their way by e-mail.`;

/** The operations notification of a B2 order. */
export const dispatchNotification = (order: OrderItem, units: HeldStockUnit[]) => ({
  subject: `Physical SIM order ${order.id} awaiting dispatch`,
  message: [
    `Order ${order.id} is paid and awaits dispatch: pick, assign and post the SIMs below.`,
    '',
    'Lines:',
    ...order.lines.map((line) => `  ${line.quantity} x ${line.name} (${line.sku})`),
    '',
    'SIMs assigned to the order:',
    ...units.map((unit) => `  ${unit.iccid}`),
    '',
    'Ship to:',
    ...addressLines(order.shipping_address).map((line) => `  ${line}`),
    ...(order.shipping_address?.phone ? [`  Phone: ${order.shipping_address.phone}`] : []),
    '',
    `Buyer: ${order.customer_name ?? ''} <${order.customer_email}>`,
    `Total paid: ${money(order.amount_total)} (GBP)`,
    '',
  ].join('\n'),
});
