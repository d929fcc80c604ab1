import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One attachment of a parsed e-mail. */
export interface ParsedAttachment {
  filename: string | undefined;
  contentType: string;
  content: Buffer;
}

/** An .eml file of the outbox, parsed the way a mail client reads it. */
export interface ParsedEmail {
  file: string;
  /** Header names lower-cased, values unfolded and decoded. */
  headers: Record<string, string>;
  text: string;
  attachments: ParsedAttachment[];
  raw: string;
}

const decodeWords = (value: string): string =>
  value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?B\?([^?]*)\?=/gi, (_, data: string) => Buffer.from(data, 'base64').toString('utf8'));

const splitHead = (raw: string): { headers: Record<string, string>; body: string } => {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  const body = end === -1 ? '' : raw.slice(end + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim());
  }
  return { headers, body };
};

const decodeQuotedPrintable = (text: string): Buffer => {
  const joined = text.replace(/=\r\n/g, '');
  const bytes: number[] = [];
  for (let index = 0; index < joined.length; index += 1) {
    const character = joined[index]!;
    if (character === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(index + 1, index + 3))) {
      bytes.push(parseInt(joined.slice(index + 1, index + 3), 16));
      index += 2;
    } else {
      bytes.push(...Buffer.from(character, 'utf8'));
    }
  }
  return Buffer.from(bytes);
};

const decodeBody = (headers: Record<string, string>, body: string): Buffer => {
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body);
  return Buffer.from(body, 'utf8');
};

/** A text body as a mail client shows it: UTF-8, line breaks as \n. */
const toText = (body: Buffer): string => body.toString('utf8').replace(/\r\n/g, '\n');

/** Parses one RFC 5322 / MIME message (a text body, or multipart/mixed with attachments). */
export const parseEmail = (raw: string, file = ''): ParsedEmail => {
  const { headers, body } = splitHead(raw);
  const contentType = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!boundary) return { file, headers, text: toText(decodeBody(headers, body)), attachments: [], raw };
  const parts = body
    .split(`--${boundary}`)
    .slice(1)
    .filter((part) => !part.startsWith('--'))
    .map((part) => splitHead(part.replace(/^\r\n/, '').replace(/\r\n$/, '')));
  let text = '';
  const attachments: ParsedAttachment[] = [];
  for (const part of parts) {
    const type = part.headers['content-type'] ?? 'text/plain';
    const disposition = part.headers['content-disposition'] ?? '';
    if (/^attachment/i.test(disposition)) {
      attachments.push({ filename: /filename="([^"]+)"/.exec(disposition)?.[1], contentType: type.split(';')[0]!.trim(), content: decodeBody(part.headers, part.body) });
    } else if (/^text\/plain/i.test(type)) {
      text = toText(decodeBody(part.headers, part.body));
    }
  }
  return { file, headers, text, attachments, raw };
};

/** Every .eml of the outbox (oldest first), parsed; only those whose file name contains `filter`, when given. */
export const readOutbox = (directory: string, filter?: string): ParsedEmail[] =>
  existsSync(directory)
    ? readdirSync(directory)
        .filter((name) => name.endsWith('.eml') && (filter === undefined || name.includes(filter)))
        .sort()
        .map((name) => parseEmail(readFileSync(join(directory, name), 'utf8'), name))
    : [];

/** One operations notification file of the local outbox. */
export interface OperationsFile {
  file: string;
  topic: string;
  subject: string;
  message: string;
  reference: string;
  sent_at: string;
}

/** The operations notifications in `<outbox>/operations/` whose file name contains `filter`. */
export const readOperationsOutbox = (directory: string, filter?: string): OperationsFile[] => {
  const folder = join(directory, 'operations');
  return existsSync(folder)
    ? readdirSync(folder)
        .filter((name) => name.endsWith('.json') && (filter === undefined || name.includes(filter)))
        .sort()
        .map((name) => ({ file: name, ...(JSON.parse(readFileSync(join(folder, name), 'utf8')) as Omit<OperationsFile, 'file'>) }))
    : [];
};
