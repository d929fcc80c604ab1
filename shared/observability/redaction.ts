/**
 * What a log line may show of a phone number or a URL (issue #31 point 6; docs/operations.md,
 * "What a log line never shows"). The logger (./logger.ts) applies it to every line it writes,
 * the invocation's keys included, whatever the call site: a call site logs the plain value and
 * the line shows the masked one.
 *
 * - A phone number (an MSISDN: a SIM's, the sender of an inbound SMS, the destination of an SMS)
 *   shows only its last four digits after three bullets: `+44 7700 900001` → `•••0001`. Always
 *   three bullets, so the length of the number is not shown either; a value of four digits or
 *   fewer shows none of them (`•••`).
 * - A URL (a callback_url, a redirect's Location, a webhook subscription's url, any URL in an
 *   error message) shows only its origin, scheme://host[:port]:
 *   `https://hooks.example.com:8443/sms/receipts?token=x` → `https://hooks.example.com:8443`.
 *   Its path and query are the caller's, and often carry a token; its user name and password
 *   are dropped with them. A `file://` URL in a text (a stack frame of a deployed bundle) is
 *   kept whole: it names a place in the code, and the stack decoder needs it.
 *
 * Where: by field name, at any depth (a field named like a phone number: `msisdn`,
 * `*_msisdn`, `phone`, `phone_number`, `to`, `origination_number`, `destination_number`, their
 * camelCase forms, `DestinationPhoneNumber`, in any case; a field named like a URL: `url`,
 * `*_url`, `*Url`, `uri`, `location`), and in every text (the message, an error's message and
 * stack, any other string): each URL, each `+` and 5 to 15 digits, each JSON member
 * `"msisdn":"<digits>"` (or another phone field's name), and each run of 8 to 15 digits that
 * stands alone (not inside a
 * longer number, a word, a decimal, an id like `m-12345678` or an ARN's `:123456789012`), which
 * is how a provider's error text may echo a number. An ICCID (19 or 20 digits) is not a phone
 * number and is kept.
 */

/** Field names whose value is a phone number (exact names: `msisdn_claim`, a count, is not one). */
const phoneField = /^(msisdns?|[a-z_]*_msisdn|phone|phone_?numbers?|to|origination_?number|destination_?number|destination_?phone_?number)$/i;

/** Field names whose value is a URL. */
const urlField = /(^|_)ur[li]s?$|[a-z]Urls?$|^location$/i;

/** How a phone number shows in a log line: three bullets and its last four digits. */
export const maskPhoneNumber = (value: string | number): string => {
  const digits = String(value).replace(/\D/g, '');
  return `•••${digits.length > 4 ? digits.slice(-4) : ''}`;
};

const alreadyMasked = /^•••\d{0,4}$/;

/** How a URL shows in a log line: its origin (scheme://host[:port]), or `[url]` when it is not one. */
export const urlOrigin = (value: string): string => {
  try {
    const url = new URL(value.trim());
    return url.host ? `${url.protocol}//${url.host}` : '[url]';
  } catch {
    return '[url]';
  }
};

// A URL in a text: a scheme, ://, and what follows up to white space, a quote, < > or a backslash
// (the end of a JSON string inside the text). Punctuation that ends a sentence is kept out.
const urlInText = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>\\`]+/gi;
const trailingPunctuation = /[.,;:!?)\]}]+$/;
// A `+` and 5 to 15 digits (single spaces or hyphens between them allowed), not inside a longer number.
const e164InText = /(?<![\w+])\+\d(?:[ -]?\d){4,14}(?![\w])/g;
// A JSON member of a phone field inside a text (escaped once or more when the text holds JSON within JSON).
const phoneMemberInText =
  /(\\*"(?:msisdn|[a-z_]*_msisdn|phone|phone_?number|to|origination_?number|destination_?number|originationNumber|destinationNumber|DestinationPhoneNumber)\\*"\s*:\s*\\*")([^"\\]*)(\\*")/gi;
// A run of 8 to 15 digits standing alone.
const digitsInText = /(?<![\w:.+\-•])\d{8,15}(?![\w.-])/g;

/** A text with every URL cut to its origin and every phone number masked (the rules above). */
export const redactText = (text: string): string => {
  if (!/[\d:]/.test(text)) return text;
  return text
    .replace(urlInText, (match) => {
      // A file:// URL is a place in the code (a stack frame of a bundle), never the caller's: kept, so that `npm run decode-stack` can map it.
      if (/^file:\/\//i.test(match)) return match;
      const [url, punctuation] = [match.replace(trailingPunctuation, ''), trailingPunctuation.exec(match)?.[0] ?? ''];
      return `${urlOrigin(url)}${punctuation}`;
    })
    .replace(phoneMemberInText, (_match, open: string, value: string, close: string) => `${open}${alreadyMasked.test(value) ? value : maskPhoneNumber(value)}${close}`)
    .replace(e164InText, (match) => maskPhoneNumber(match))
    .replace(digitsInText, (match) => maskPhoneNumber(match));
};

/** Whether a field of this name holds a phone number (its value, or each of its values, is masked whole). */
export const isPhoneField = (name: string): boolean => phoneField.test(name);

/** Whether a field of this name holds a URL (its value, or each of its values, is cut to its origin). */
export const isUrlField = (name: string): boolean => urlField.test(name);

/** A string or number under a field named `name`, as a log line may show it. */
export const redactValue = (name: string | undefined, value: string | number): string | number => {
  if (name !== undefined && isPhoneField(name)) return typeof value === 'string' && alreadyMasked.test(value) ? value : maskPhoneNumber(value);
  if (typeof value === 'number') return value;
  // Not an absolute URL ("hooks.example.com/r?token=x"): shown as [url], its path cannot be told apart.
  if (name !== undefined && isUrlField(name)) return urlOrigin(value);
  return redactText(value);
};
