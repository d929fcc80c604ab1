import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from 'pdf-lib';
import type { Invoice } from './invoice';

const pageSize: [number, number] = [595.28, 841.89]; // A4 in points
const margin = 50;
const grey = rgb(0.35, 0.35, 0.35);

/** £12.00 */
const money = (amount: string): string => `\u00a3${amount}`;

/**
 * Text the standard (WinAnsi) fonts can draw: characters outside the font's set become `?`,
 * and line breaks become spaces, so that any buyer input renders instead of throwing.
 */
const drawable = (font: PDFFont, text: string): string => {
  const supported = new Set(font.getCharacterSet());
  return [...text.replace(/[\r\n\t]+/g, ' ')].map((character) => (supported.has(character.codePointAt(0)!) ? character : '?')).join('');
};

/** Cuts text with an ellipsis so that it fits `width` points. */
const fitted = (font: PDFFont, text: string, size: number, width: number): string => {
  let value = drawable(font, text);
  if (font.widthOfTextAtSize(value, size) <= width) return value;
  while (value.length > 1 && font.widthOfTextAtSize(`${value}...`, size) > width) value = value.slice(0, -1);
  return `${value}...`;
};

interface Pen {
  page: PDFPage;
  regular: PDFFont;
  bold: PDFFont;
}

const write = (pen: Pen, text: string, x: number, y: number, options: { size?: number; bold?: boolean; width?: number; right?: boolean; colour?: ReturnType<typeof rgb> } = {}) => {
  const font = options.bold ? pen.bold : pen.regular;
  const size = options.size ?? 10;
  const value = options.width ? fitted(font, text, size, options.width) : drawable(font, text);
  const left = options.right ? x - font.widthOfTextAtSize(value, size) : x;
  pen.page.drawText(value, { x: left, y, size, font, color: options.colour ?? rgb(0, 0, 0) });
};

/**
 * Renders an invoice as a one-page A4 PDF (pdf-lib, standard Helvetica, no external files):
 * seller and buyer blocks, invoice number, date and order id, the lines with quantity, net
 * unit price and net amount, then net, VAT and total. The PDF's dates are the issue date, so
 * the same invoice renders the same way again.
 */
export const renderInvoicePdf = async (invoice: Invoice): Promise<Uint8Array> => {
  const document = await PDFDocument.create();
  const issued = new Date(`${invoice.issueDate}T00:00:00Z`);
  document.setTitle(`Invoice ${invoice.number}`);
  document.setAuthor(invoice.seller.name);
  document.setSubject(`Invoice for order ${invoice.orderId}`);
  document.setProducer('sim-checkout-service');
  document.setCreator('sim-checkout-service');
  document.setCreationDate(issued);
  document.setModificationDate(issued);

  const page = document.addPage(pageSize);
  const pen: Pen = {
    page,
    regular: await document.embedFont(StandardFonts.Helvetica),
    bold: await document.embedFont(StandardFonts.HelveticaBold),
  };
  const right = pageSize[0] - margin;
  let y = pageSize[1] - margin - 10;

  write(pen, 'INVOICE', margin, y, { size: 22, bold: true });
  let sellerY = y;
  write(pen, invoice.seller.name, right, sellerY, { bold: true, right: true });
  for (const line of [...invoice.seller.address, `VAT number: ${invoice.seller.vatNumber}`, `Company number: ${invoice.seller.companyNumber}`, invoice.seller.email]) {
    sellerY -= 13;
    write(pen, line, right, sellerY, { right: true, size: 9, colour: grey });
  }

  y -= 40;
  const facts: Array<[string, string]> = [
    ['Invoice number', invoice.number],
    ['Invoice date', invoice.issueDate],
    ['Order', invoice.orderId],
    ['Currency', invoice.currency],
  ];
  for (const [label, value] of facts) {
    write(pen, label, margin, y, { size: 9, colour: grey });
    write(pen, value, margin + 90, y, { size: 9 });
    y -= 13;
  }

  y = Math.min(y, sellerY) - 25;
  write(pen, 'Bill to', margin, y, { bold: true });
  y -= 14;
  const buyer = [
    invoice.buyer.company,
    ...(invoice.buyer.contactName && invoice.buyer.contactName !== invoice.buyer.company ? [`Attn: ${invoice.buyer.contactName}`] : []),
    ...invoice.buyer.address,
    invoice.buyer.email,
    ...(invoice.buyer.vatNumber ? [`VAT number: ${invoice.buyer.vatNumber}`] : []),
    ...(invoice.buyer.registrationNumber ? [`Company number: ${invoice.buyer.registrationNumber}`] : []),
  ];
  for (const line of buyer) {
    write(pen, line, margin, y, { width: 300 });
    y -= 13;
  }

  y -= 20;
  const columns = { description: margin, quantity: 360, unit: 450, amount: right };
  write(pen, 'Description', columns.description, y, { bold: true, size: 9 });
  write(pen, 'Qty', columns.quantity, y, { bold: true, size: 9, right: true });
  write(pen, 'Unit price (net)', columns.unit, y, { bold: true, size: 9, right: true });
  write(pen, 'Amount (net)', columns.amount, y, { bold: true, size: 9, right: true });
  y -= 6;
  page.drawLine({ start: { x: margin, y }, end: { x: right, y }, thickness: 0.5, color: grey });
  y -= 14;
  for (const line of invoice.lines) {
    write(pen, line.description, columns.description, y, { size: 9, width: 270 });
    write(pen, String(line.quantity), columns.quantity, y, { size: 9, right: true });
    write(pen, money(line.unitPrice), columns.unit, y, { size: 9, right: true });
    write(pen, money(line.lineTotal), columns.amount, y, { size: 9, right: true });
    y -= 15;
  }
  page.drawLine({ start: { x: margin, y: y + 8 }, end: { x: right, y: y + 8 }, thickness: 0.5, color: grey });

  y -= 8;
  const totals: Array<[string, string, boolean]> = [
    ['Net', money(invoice.net), false],
    [`VAT (${invoice.vatRate}%)`, money(invoice.vat), false],
    ['Total', money(invoice.total), true],
  ];
  for (const [label, value, bold] of totals) {
    write(pen, label, columns.unit, y, { size: 10, right: true, bold });
    write(pen, value, columns.amount, y, { size: 10, right: true, bold });
    y -= 15;
  }

  write(pen, `Paid in full. Order ${invoice.orderId}.`, margin, margin, { size: 8, colour: grey });
  return document.save();
};
