/**
 * Stripe's webhook signature scheme, checked with node:crypto so that the webhook function
 * does not bundle the Stripe SDK (240 KiB) for one HMAC. It is the check of stripe-node's
 * `webhooks.constructEvent` (esm/Webhooks.js, `signature.verifyHeader`):
 * - the `Stripe-Signature` header is `t=<unix seconds>,v1=<hex>[,v1=<hex>...]`, items split
 *   on `,` and each on `=`; other schemes (`v0`, a future `v2`) are ignored;
 * - the expected `v1` is HMAC-SHA256, keyed with the whole secret string (`whsec_` included,
 *   as stripe-node does), of `<t>.` followed by the body, hex;
 * - it holds when any `v1` equals it (constant-time compare) and the timestamp is at most
 *   `toleranceSeconds` from now.
 * Three points are stricter than stripe-node, never looser: the body is signed as the bytes that
 * arrived (stripe-node decodes them as UTF-8 first, which only differs for bytes Stripe never
 * sends: invalid UTF-8 or a leading BOM), `t` must be digits (stripe-node's `parseInt`
 * lets `t=abc` through as NaN with no age check), and a timestamp more than `toleranceSeconds`
 * in the future is refused as one that old is (stripe-node checks only the past; the Standard
 * Webhooks rule checks both directions, so a signature made with a clock set ahead cannot be
 * replayed for longer).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The parts of a Stripe-Signature header that the check uses. */
export interface StripeSignatureHeader {
  /** `t`, in seconds since the epoch; undefined when absent or not digits. */
  timestamp: number | undefined;
  /** Every `v1` signature, in header order. */
  signatures: string[];
}

/** Reads `t` and every `v1` of a Stripe-Signature header (the last `t` wins, as in stripe-node). */
export const parseStripeSignatureHeader = (header: string): StripeSignatureHeader => {
  const parsed: StripeSignatureHeader = { timestamp: undefined, signatures: [] };
  for (const item of header.split(',')) {
    const [name, value = ''] = item.split('=');
    if (name === 't') parsed.timestamp = /^\d{1,15}$/.test(value) ? Number(value) : undefined;
    if (name === 'v1') parsed.signatures.push(value);
  }
  return parsed;
};

/** The hex `v1` signature Stripe makes for `body` at `timestamp` under `secret`. */
export const stripeSignatureOf = (body: Buffer, timestamp: number, secret: string): string =>
  createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest('hex');

const sameText = (expected: string, given: string): boolean => {
  const left = Buffer.from(expected, 'utf8');
  const right = Buffer.from(given, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

/** What verifyStripeSignature is given. */
export interface StripeSignatureCheck {
  /** The request body exactly as it arrived. */
  body: Buffer;
  /** The Stripe-Signature header, undefined when absent. */
  header: string | undefined;
  /** STRIPE_WEBHOOK_SECRET (`whsec_...`). */
  secret: string;
  toleranceSeconds: number;
  /** Now, in milliseconds since the epoch. */
  now: number;
}

/**
 * Whether a webhook delivery carries a valid Stripe signature: a non-empty body, a header
 * with a `t` and at least one `v1`, one `v1` that matches, and a timestamp within the
 * tolerance of now, in either direction. A blank secret verifies nothing.
 */
export const verifyStripeSignature = ({ body, header, secret, toleranceSeconds, now }: StripeSignatureCheck): boolean => {
  if (body.length === 0 || !header || /^\s*$/.test(secret)) return false;
  const { timestamp, signatures } = parseStripeSignatureHeader(header);
  if (timestamp === undefined || signatures.length === 0) return false;
  const expected = stripeSignatureOf(body, timestamp, secret);
  // Every candidate is compared, a match or not, so the time taken does not say which one matched.
  const matched = signatures.map((signature) => sameText(expected, signature)).includes(true);
  const age = Math.floor(now / 1000) - timestamp;
  return matched && !(toleranceSeconds > 0 && Math.abs(age) > toleranceSeconds);
};
