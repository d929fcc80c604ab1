/**
 * Which strings may travel: the character rules for text that becomes a DynamoDB key, an SQS
 * message, a signed payload or a message to a provider (issue #10, docs/sms.md "Characters").
 *
 * The carriable characters are XML 1.0's `Char` production, which is also exactly what SQS
 * accepts in a message body: `#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] |
 * [#x10000-#x10FFFF]`. So a lone surrogate (not well-formed UTF-16: it has no UTF-8 form,
 * and DynamoDB stores it as `?`, so `X\ud800` and `X?` would be one key), the noncharacters
 * U+FFFE and U+FFFF, and the C0 controls other than tab, line feed and carriage return are
 * refused.
 */

// With the `u` flag a lone surrogate is one code point of its own, outside every range here.
const carriable = /^[\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]*$/u;

// C0 controls (tab, line feed and carriage return included), DEL and the C1 controls.
const control = /[\u0000-\u001f\u007f-\u009f]/;

/** True when every character of `text` may be carried (XML 1.0 `Char`, what SQS accepts); see the module comment. */
export const isCarriableText = (text: string): boolean => carriable.test(text);

/**
 * True for an identifier (a message id, a name looked up as a key): carriable text
 * (isCarriableText) without any control character, not even tab or a line break.
 */
export const isIdentifierText = (text: string): boolean => isCarriableText(text) && !control.test(text);

/** Length in characters as the spec counts them: Unicode code points (a lone surrogate counts as one). */
export const characterCount = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};

/** Bytes of `text` in UTF-8, as DynamoDB measures key sizes. */
export const utf8Length = (text: string): number => Buffer.byteLength(text, 'utf8');
