/** A value Stripe's v1 API takes in a form body: a scalar, or an object of them (`metadata`). */
export type StripeFormValue = string | number | boolean | undefined | { [name: string]: StripeFormValue };

// encodeURIComponent, plus the characters qs encodes and it does not; brackets stay as they
// are for readability, as stripe-node sends them (Stripe accepts both).
const encode = (text: string): string =>
  encodeURIComponent(text)
    .replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%5B/g, '[')
    .replace(/%5D/g, ']');

/**
 * The `application/x-www-form-urlencoded` body of a Stripe v1 request, encoded as stripe-node
 * encodes it: nested objects in Stripe's bracket syntax (`metadata[order_id]=...`), fields in
 * the order given, undefined fields left out.
 */
export const stripeForm = (fields: Record<string, StripeFormValue>): string => {
  const pairs: string[] = [];
  const add = (name: string, value: StripeFormValue) => {
    if (value === undefined) return;
    if (typeof value === 'object') {
      for (const [inner, innerValue] of Object.entries(value)) add(`${name}[${inner}]`, innerValue);
      return;
    }
    pairs.push(`${encode(name)}=${encode(String(value))}`);
  };
  for (const [name, value] of Object.entries(fields)) add(name, value);
  return pairs.join('&');
};
