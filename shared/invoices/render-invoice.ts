import type { Invoice } from './invoice';
import type * as InvoicePdf from './invoice-pdf';

/**
 * Set by the functions' bundling (infra/bundling.ts `sideModules`) to `"./invoice-pdf.mjs"`:
 * there invoice-pdf is a file of its own beside the bundle. Undeclared under tsx and vitest,
 * where the source is imported.
 */
declare const INVOICE_PDF_FILE: string | undefined;

/**
 * The invoice PDF, with pdf-lib loaded on the first invoice only: pdf-lib and its fonts are
 * about 40 % of fulfil-order and serve IoT orders alone. In a bundle they are a side file
 * (invoice-pdf.mjs), so a cold start neither parses nor evaluates them (issue #11); esbuild
 * drops the other branch, and with it the static import of the source.
 */
export const renderInvoice = async (invoice: Invoice): Promise<Uint8Array> => {
  const module: typeof InvoicePdf =
    typeof INVOICE_PDF_FILE === 'string' ? await import(new URL(INVOICE_PDF_FILE, import.meta.url).href) : await import('./invoice-pdf');
  return module.renderInvoicePdf(invoice);
};
