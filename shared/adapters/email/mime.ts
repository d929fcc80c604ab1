import { randomBytes } from 'node:crypto';
import type { EmailAttachment, EmailMessage } from './mailer';

/** What goes into one MIME message. */
export interface MimeInput {
  /** `Name <address>` or a bare address. */
  from: string;
  to: string[];
  subject: string;
  text: string;
  attachments?: EmailAttachment[];
  /** Without angle brackets: `local@domain`. */
  messageId: string;
  date: Date;
}

const crlf = '\r\n';
const printableAscii = /^[\x20-\x7e]*$/;

/** A header value on one line: CR and LF would start a new header (header injection). */
const oneLine = (value: string): string => value.replace(/[\r\n]+/g, ' ').trim();

/**
 * A header text as RFC 2047 encoded-words when it is not plain ASCII, split so that no
 * encoded-word is longer than 75 characters and no UTF-8 sequence is cut.
 */
export const encodeHeaderText = (value: string): string => {
  const text = oneLine(value);
  if (printableAscii.test(text)) return text;
  const words: string[] = [];
  let chunk = '';
  for (const character of text) {
    if (Buffer.byteLength(chunk + character, 'utf8') > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += character;
  }
  if (chunk !== '') words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word, 'utf8').toString('base64')}?=`).join(`${crlf} `);
};

/**
 * One mailbox for an address header. A display name in plain ASCII is quoted (so commas and
 * other specials in it stay part of the name); any other name is encoded.
 */
export const formatMailbox = (address: string, name?: string): string => {
  const bare = oneLine(address);
  if (!name) return bare;
  const display = oneLine(name);
  const phrase = printableAscii.test(display) ? `"${display.replace(/["\\]/g, (match) => `\\${match}`)}"` : encodeHeaderText(display);
  return `${phrase} <${bare}>`;
};

/** An RFC 5322 date: `Tue, 22 Nov 2026 10:00:00 +0000`. */
export const formatMailDate = (date: Date): string => {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (value: number) => String(value).padStart(2, '0');
  return (
    `${days[date.getUTCDay()]}, ${two(date.getUTCDate())} ${months[date.getUTCMonth()]} ${date.getUTCFullYear()} ` +
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())} +0000`
  );
};

/**
 * Quoted-printable (RFC 2045) of UTF-8 text: line breaks become CRLF, lines are soft-wrapped
 * at 76 characters, and every byte that is not printable ASCII (or is `=`, or is a space
 * or tab at a line's end) is written `=XX`. Plain English stays readable in the raw file.
 */
export const quotedPrintable = (text: string): string =>
  text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => {
      const bytes = Buffer.from(line, 'utf8');
      const tokens: string[] = [];
      bytes.forEach((byte, index) => {
        const last = index === bytes.length - 1;
        const literal = (byte >= 33 && byte <= 126 && byte !== 61) || ((byte === 32 || byte === 9) && !last);
        tokens.push(literal ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`);
      });
      const wrapped: string[] = [];
      let current = '';
      for (const token of tokens) {
        if (current.length + token.length > 75) {
          wrapped.push(`${current}=`);
          current = '';
        }
        current += token;
      }
      wrapped.push(current);
      return wrapped.join(crlf);
    })
    .join(crlf);

/** Base64 in lines of 76 characters. */
export const base64Lines = (content: Uint8Array): string =>
  (Buffer.from(content).toString('base64').match(/.{1,76}/g) ?? []).join(crlf);

const safeFilename = (filename: string): string => filename.replace(/[^A-Za-z0-9._-]/g, '_') || 'attachment';

/**
 * Builds one RFC 5322 / MIME message: a text/plain UTF-8 body in quoted-printable, and, with
 * attachments, a multipart/mixed whose attachments are base64 parts. Header values are kept
 * on one line and encoded when not plain ASCII. Every line ends in CRLF, as SES and mail
 * clients expect of a raw message.
 */
export const buildMimeMessage = (input: MimeInput): string => {
  const headers = [
    `From: ${oneLine(input.from)}`,
    `To: ${input.to.map((address) => formatMailbox(address)).join(', ')}`,
    `Subject: ${encodeHeaderText(input.subject)}`,
    `Date: ${formatMailDate(input.date)}`,
    `Message-ID: <${oneLine(input.messageId)}>`,
    'MIME-Version: 1.0',
  ];
  const textHeaders = ['Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: quoted-printable'];
  const body = quotedPrintable(input.text);
  const attachments = input.attachments ?? [];
  if (attachments.length === 0) {
    return [...headers, ...textHeaders, '', body, ''].join(crlf);
  }
  const boundary = `=_part_${randomBytes(12).toString('hex')}`;
  const parts = [
    [...textHeaders, '', body].join(crlf),
    ...attachments.map((attachment) => {
      const filename = safeFilename(attachment.filename);
      return [
        `Content-Type: ${oneLine(attachment.contentType)}; name="${filename}"`,
        'Content-Transfer-Encoding: base64',
        `Content-Disposition: attachment; filename="${filename}"`,
        '',
        base64Lines(attachment.content),
      ].join(crlf);
    }),
  ];
  return [
    ...headers,
    `Content-Type: multipart/mixed; boundary="${boundary}"`,
    '',
    'This is a multi-part message in MIME format.',
    ...parts.flatMap((part) => [`--${boundary}`, part]),
    `--${boundary}--`,
    '',
  ].join(crlf);
};

/** Who sends: an adapter's EMAIL_FROM and the domain of its Message-IDs. */
export interface MimeSender {
  from: string;
  messageIdDomain: string;
}

/**
 * The MIME text of one message as the domain wrote it, sent by `sender` at `date`. Every
 * adapter builds it here, so that the Message-ID is `<reference>@<domain>` whichever adapter
 * sends it, and a person can match a message to its order effect.
 */
export const buildEmailMime = (message: EmailMessage, sender: MimeSender, date: Date): string =>
  buildMimeMessage({
    from: sender.from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    attachments: message.attachments,
    messageId: `${message.reference}@${sender.messageIdDomain}`,
    date,
  });
