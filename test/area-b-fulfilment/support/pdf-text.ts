import { inflateSync } from 'node:zlib';

/**
 * The strings a PDF made by pdf-lib draws, in drawing order: every FlateDecode stream is
 * inflated and the hex strings of its `Tj` operators decoded (WinAnsi, as the standard fonts
 * use). Enough to read back an invoice in a test; not a general PDF text extractor.
 */
export const pdfStrings = (pdf: Uint8Array): string[] => {
  const raw = Buffer.from(pdf);
  const text = raw.toString('latin1');
  const strings: string[] = [];
  const streamPattern = /\/Filter \/FlateDecode[^>]*>>\s*stream\r?\n/g;
  for (let match = streamPattern.exec(text); match; match = streamPattern.exec(text)) {
    const start = match.index + match[0].length;
    const end = text.indexOf('endstream', start);
    let content: string;
    try {
      content = inflateSync(raw.subarray(start, end)).toString('latin1');
    } catch {
      continue;
    }
    for (const shown of content.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)) strings.push(Buffer.from(shown[1]!, 'hex').toString('latin1'));
  }
  return strings;
};
