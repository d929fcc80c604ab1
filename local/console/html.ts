/**
 * HTML for the developer console, escaped by construction: every value interpolated into the
 * `html` template is escaped unless it is itself an `Html` made by this module, so data from
 * the table, the outbox or a webhook (attacker-controlled: e-mail bodies, names, headers)
 * can never become markup. There is deliberately no way to mark an arbitrary string as safe.
 */

/** Only this module holds it, so only this module can make an Html. */
const madeHere = Symbol('html');

/** A fragment of HTML that this module built (escaped text and template literals only). */
export class Html {
  /** Use `html` or `joinHtml` to make one. */
  constructor(
    proof: typeof madeHere,
    readonly markup: string,
  ) {
    if (proof !== madeHere) throw new TypeError('Html is made by html`` or joinHtml() only');
  }

  toString(): string {
    return this.markup;
  }
}

const of = (markup: string): Html => new Html(madeHere, markup);

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text made safe for element content and double- or single-quoted attribute values. */
export const escapeHtml = (value: string): string => value.replace(/[&<>"'`]/g, (character) => entities[character]!);

/** A value as HTML: an Html as is, a list joined, null/undefined/false as nothing, anything else escaped text. */
const fragment = (value: unknown): string => {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(fragment).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
};

/** The tagged template: `html\`<td>${order.customer_email}</td>\`` escapes the e-mail. */
export const html = (strings: TemplateStringsArray, ...values: unknown[]): Html =>
  of(strings.reduce((markup, part, index) => markup + part + (index < values.length ? fragment(values[index]) : ''), ''));

/** Fragments joined by a separator (itself escaped unless an Html). */
export const joinHtml = (parts: unknown[], separator: unknown = ''): Html =>
  of(parts.map(fragment).join(fragment(separator)));
