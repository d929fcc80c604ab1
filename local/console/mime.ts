/**
 * A small reader of RFC 5322 / MIME messages, enough to show an outbox `.eml` file in the
 * developer console: headers (RFC 2047 encoded-words), text and HTML bodies in any charset
 * Node knows, quoted-printable and base64, nested multiparts, and attachments with their file
 * names (RFC 2231 too). It never throws on a malformed message: what it cannot read it shows
 * as raw text or leaves out. The service's own outbox writes what shared/adapters/email/mime.ts
 * builds; the reader accepts any message, since a person may drop other files in the folder.
 */

/** One leaf part of a message: its type, what it is called and its decoded bytes. */
export interface MessagePart {
  /** Its position among the leaves, from 0: the console's download path names it. */
  index: number;
  /** Lower-cased `type/subtype`; `text/plain` when the message says nothing. */
  contentType: string;
  charset?: string;
  /** Set when the part is an attachment (Content-Disposition or a name). */
  filename?: string;
  attachment: boolean;
  content: Buffer;
}

/** A message as the console shows it. */
export interface ParsedMessage {
  /** Header values decoded to text, by lower-cased name (the first of each name). */
  headers: Record<string, string>;
  subject: string;
  from: string;
  to: string;
  date: string;
  /** The first text/plain and text/html bodies that are not attachments, decoded. */
  text?: string;
  html?: string;
  /** Every leaf part, in order. */
  parts: MessagePart[];
}

/** Nesting deeper than this is not followed (a crafted message cannot make the reader recurse forever). */
const maxDepth = 8;

const decodeCharset = (bytes: Buffer, charset: string | undefined): string => {
  try {
    return new TextDecoder(charset || 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
};

/** The bytes of a quoted-printable text (given as one char per byte). */
const fromQuotedPrintable = (raw: string): Buffer => {
  const unwrapped = raw.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let index = 0; index < unwrapped.length; index += 1) {
    const character = unwrapped[index]!;
    const hex = unwrapped.slice(index + 1, index + 3);
    if (character === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 2;
    } else {
      bytes.push(character.charCodeAt(0) & 0xff);
    }
  }
  return Buffer.from(bytes);
};

/** RFC 2047 encoded-words in a header value (`=?UTF-8?B?...?=`), with the space between two of them dropped. */
export const decodeHeaderValue = (value: string): string =>
  value
    .replace(/(=\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)\s+(?==\?[^?\s]+\?[BbQq]\?[^?\s]*\?=)/g, '$1')
    .replace(/=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g, (word, charset: string, encoding: string, data: string) => {
      try {
        const bytes =
          encoding.toUpperCase() === 'B'
            ? Buffer.from(data, 'base64')
            : fromQuotedPrintable(data.replace(/_/g, ' '));
        return decodeCharset(bytes, charset.split('*')[0]);
      } catch {
        return word;
      }
    });

/** Splits a header block into decoded values by lower-cased name (folded lines joined). */
const readHeaders = (block: string): Record<string, string> => {
  // No prototype: a header named __proto__ is an ordinary entry.
  const headers = Object.create(null) as Record<string, string>;
  const unfolded = block.replace(/\r?\n[ \t]+/g, ' ');
  for (const line of unfolded.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!/^[\x21-\x39\x3b-\x7e]+$/.test(name) || Object.hasOwn(headers, name)) continue;
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
};

/** `type/subtype; name=value; other="quoted"` as its value and parameters (RFC 2231 `name*=charset''text` decoded). */
const parameters = (value: string): { value: string; params: Record<string, string> } => {
  const [first = '', ...rest] = value.match(/(?:[^;"]|"(?:[^"\\]|\\.)*")+/g) ?? [''];
  const params = Object.create(null) as Record<string, string>;
  for (const entry of rest) {
    const equals = entry.indexOf('=');
    if (equals <= 0) continue;
    const name = entry.slice(0, equals).trim().toLowerCase();
    let content = entry.slice(equals + 1).trim();
    if (content.startsWith('"') && content.endsWith('"') && content.length >= 2) content = content.slice(1, -1).replace(/\\(.)/g, '$1');
    if (name.endsWith('*')) {
      const extended = /^([^']*)'[^']*'(.*)$/.exec(content);
      if (extended) {
        try {
          content = decodeCharset(Buffer.from(decodeURIComponent(extended[2]!.replace(/%(?![0-9A-Fa-f]{2})/g, '%25')), 'utf8'), 'utf-8');
        } catch {
          content = extended[2]!;
        }
      }
      params[name.slice(0, -1)] ??= content;
    } else {
      params[name] = content;
    }
  }
  return { value: first.trim().toLowerCase(), params };
};

/** Header block and body of an entity (given as one char per byte), split at the first empty line. */
const splitEntity = (entity: string): { head: string; body: string } => {
  const match = /\r?\n\r?\n/.exec(entity);
  if (!match) return { head: entity, body: '' };
  return { head: entity.slice(0, match.index), body: entity.slice(match.index + match[0].length) };
};

const decodeBody = (body: string, encoding: string | undefined): Buffer => {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
    case 'quoted-printable':
      return fromQuotedPrintable(body);
    default:
      return Buffer.from(body, 'latin1');
  }
};

/** The parts of a multipart body between `--boundary` lines (preamble and epilogue dropped). */
const multipartBodies = (body: string, boundary: string): string[] => {
  const lines = body.split(/\r?\n/);
  const parts: string[] = [];
  let current: string[] | undefined;
  for (const line of lines) {
    const trimmed = line.trimEnd();
    if (trimmed === `--${boundary}--`) {
      if (current) parts.push(current.join('\r\n'));
      return parts;
    }
    if (trimmed === `--${boundary}`) {
      if (current) parts.push(current.join('\r\n'));
      current = [];
      continue;
    }
    current?.push(line);
  }
  if (current) parts.push(current.join('\r\n'));
  return parts;
};

const collectParts = (entity: string, depth: number, parts: MessagePart[]): void => {
  const { head, body } = splitEntity(entity);
  const headers = readHeaders(head);
  const type = parameters(headers['content-type'] ?? 'text/plain');
  const contentType = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type.value) ? type.value : 'text/plain';
  if (contentType.startsWith('multipart/') && type.params.boundary && depth < maxDepth) {
    for (const part of multipartBodies(body, type.params.boundary)) collectParts(part, depth + 1, parts);
    return;
  }
  const disposition = parameters(headers['content-disposition'] ?? '');
  const filename = disposition.params.filename ?? type.params.name;
  parts.push({
    index: parts.length,
    contentType,
    ...(type.params.charset ? { charset: type.params.charset } : {}),
    ...(filename !== undefined ? { filename: decodeHeaderValue(filename) } : {}),
    attachment: disposition.value === 'attachment' || filename !== undefined,
    content: decodeBody(body, headers['content-transfer-encoding']),
  });
};

/** Reads one message from its raw bytes. */
export const parseMessage = (raw: Buffer): ParsedMessage => {
  const entity = raw.toString('latin1');
  const { head } = splitEntity(entity);
  const rawHeaders = readHeaders(head);
  // Header bytes are UTF-8 when not encoded-words (RFC 6532); the reader got them one char per byte.
  const headers = Object.fromEntries(
    Object.entries(rawHeaders).map(([name, value]) => [name, decodeHeaderValue(Buffer.from(value, 'latin1').toString('utf8'))]),
  );
  const parts: MessagePart[] = [];
  collectParts(entity, 0, parts);
  const body = (type: string) => {
    const part = parts.find((candidate) => !candidate.attachment && candidate.contentType === type);
    return part ? decodeCharset(part.content, part.charset) : undefined;
  };
  return {
    headers,
    subject: headers.subject ?? '',
    from: headers.from ?? '',
    to: headers.to ?? '',
    date: headers.date ?? '',
    text: body('text/plain'),
    html: body('text/html'),
    parts,
  };
};
