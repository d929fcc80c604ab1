import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { parseStripeSignatureHeader, stripeSignatureOf, verifyStripeSignature } from '../../shared/fulfilment/stripe-signature';
import { signatureToleranceSeconds } from '../../shared/fulfilment/webhook';
import { stripeEvent, stripeId, webhookSecret } from './support/stripe-events';

const now = Date.UTC(2026, 4, 14, 9, 30, 0);
const nowSeconds = Math.floor(now / 1000);
const payload = stripeEvent('payment_intent.succeeded', { orderId: 'ord_test', paymentIntentId: stripeId('pi'), amount: 1200 });

/** A header made by the Stripe SDK, as Stripe signs a delivery. */
const sdkHeader = (body: string, options: { secret?: string; timestamp?: number; scheme?: string } = {}): string =>
  Stripe.webhooks.generateTestHeaderString({ payload: body, secret: options.secret ?? webhookSecret, timestamp: options.timestamp ?? nowSeconds, scheme: options.scheme });

const verify = (body: string | Buffer, header: string | undefined, secret = webhookSecret): boolean =>
  verifyStripeSignature({ body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'), header, secret, toleranceSeconds: signatureToleranceSeconds, now });

/** The Stripe SDK's own verdict on the same delivery (constructEvent, same tolerance and clock). */
const sdkVerdict = (body: string, header: string | undefined, secret = webhookSecret): boolean => {
  try {
    Stripe.webhooks.constructEvent(body, header ?? '', secret, signatureToleranceSeconds, undefined, now);
    return true;
  } catch (error) {
    if ((error as { type?: string }).type === 'StripeSignatureVerificationError') return false;
    throw error;
  }
};

const valid = sdkHeader(payload);
const validV1 = /v1=([0-9a-f]+)/.exec(valid)![1]!;
const cases: Array<[string, string, string | undefined, string?]> = [
  ['signed by the SDK', payload, valid],
  ['signed by the SDK, body with non-ASCII text', payload.replace('"livemode":false', '"livemode":false,"note":"Zo\u00eb \u2713 \u00a3"'), undefined],
  ['tampered body', payload.replace('"amount":1200', '"amount":1201'), valid],
  ['another secret', payload, sdkHeader(payload, { secret: 'whsec_someone_else' })],
  ['the secret without its whsec_ prefix', payload, sdkHeader(payload, { secret: webhookSecret.slice('whsec_'.length) })],
  ['six minutes old', payload, sdkHeader(payload, { timestamp: nowSeconds - 360 })],
  ['exactly five minutes old', payload, sdkHeader(payload, { timestamp: nowSeconds - 300 })],
  ['five minutes and a second old', payload, sdkHeader(payload, { timestamp: nowSeconds - 301 })],
  ['a minute in the future', payload, sdkHeader(payload, { timestamp: nowSeconds + 60 })],
  ['no v1 (timestamp only)', payload, `t=${nowSeconds}`],
  ['no timestamp', payload, `v1=${validV1}`],
  ['only a v0 signature (another scheme)', payload, sdkHeader(payload, { scheme: 'v0' })],
  ['v0 and a valid v1', payload, `${valid},v0=${'0'.repeat(64)}`],
  ['several v1, one valid (last)', payload, `t=${nowSeconds},v1=${'0'.repeat(64)},v1=${'a'.repeat(64)},v1=${validV1}`],
  ['several v1, one valid (first)', payload, `t=${nowSeconds},v1=${validV1},v1=${'0'.repeat(64)}`],
  ['several v1, none valid', payload, `t=${nowSeconds},v1=${'0'.repeat(64)},v1=${validV1.slice(0, 63)}`],
  ['the valid v1 in upper case', payload, `t=${nowSeconds},v1=${validV1.toUpperCase()}`],
  ['the timestamp changed', payload, valid.replace(`t=${nowSeconds}`, `t=${nowSeconds - 1}`)],
  ['no header', payload, undefined, 'none'],
  ['empty header', payload, ''],
  ['a bearer token', payload, 'Bearer sk_test_123'],
  ['malformed', payload, 't=1,v1=00'],
];

describe("Stripe's webhook signature with node:crypto", () => {
  it('gives the Stripe SDK verdict on every delivery: SDK-signed ones verify, the rest do not', () => {
    const verdicts = cases.map(([name, body, given, none]) => {
      const header = none ? undefined : (given ?? sdkHeader(body));
      return [name, verify(body, header), sdkVerdict(body, header)];
    });
    expect(verdicts.map(([name, ours, sdk]) => [name, ours === sdk])).toEqual(cases.map(([name]) => [name, true]));
    expect(Object.fromEntries(verdicts.map(([name, ours]) => [name, ours]))).toEqual({
      'signed by the SDK': true,
      'signed by the SDK, body with non-ASCII text': true,
      'tampered body': false,
      'another secret': false,
      'the secret without its whsec_ prefix': false,
      'six minutes old': false,
      'exactly five minutes old': true,
      'five minutes and a second old': false,
      'a minute in the future': true,
      'no v1 (timestamp only)': false,
      'no timestamp': false,
      'only a v0 signature (another scheme)': false,
      'v0 and a valid v1': true,
      'several v1, one valid (last)': true,
      'several v1, one valid (first)': true,
      'several v1, none valid': false,
      'the valid v1 in upper case': false,
      'the timestamp changed': false,
      'no header': false,
      'empty header': false,
      'a bearer token': false,
      'malformed': false,
    });
  });

  it('signs with the whole secret string, whsec_ included, as the SDK does', () => {
    const body = Buffer.from(payload, 'utf8');
    expect(`t=${nowSeconds},v1=${stripeSignatureOf(body, nowSeconds, webhookSecret)}`).toBe(sdkHeader(payload));
  });

  it('refuses an empty body and a blank secret, as the SDK does', () => {
    const emptyHeader = sdkHeader('');
    expect([verify('', emptyHeader), sdkVerdict('', emptyHeader)]).toEqual([false, false]);
    const blankHeader = sdkHeader(payload, { secret: ' ' });
    expect([verify(payload, blankHeader, ' '), sdkVerdict(payload, blankHeader, ' ')]).toEqual([false, false]);
  });

  it('is stricter than the SDK on a timestamp more than 300 s in the future (the SDK checks only the past), as Standard Webhooks is', () => {
    const verdicts = [60, 300, 301, 3_600].map((ahead) => {
      const header = sdkHeader(payload, { timestamp: nowSeconds + ahead });
      return [ahead, verify(payload, header), sdkVerdict(payload, header)];
    });
    expect(verdicts).toEqual([
      [60, true, true],
      [300, true, true],
      [301, false, true],
      [3_600, false, true],
    ]);
  });

  it('is stricter than the SDK on a timestamp that is not digits (the SDK signs "NaN." and skips the age check)', () => {
    const header = `t=abc,v1=${stripeSignatureOf(Buffer.from(payload, 'utf8'), Number.NaN, webhookSecret)}`;
    expect([verify(payload, header), sdkVerdict(payload, header)]).toEqual([false, true]);
  });

  it('reads t and every v1 of a header, ignoring other schemes and odd items', () => {
    expect(parseStripeSignatureHeader('t=1700000000,v1=ab,v0=cd,v1=ef,x,=,t2=9')).toEqual({ timestamp: 1700000000, signatures: ['ab', 'ef'] });
    expect(parseStripeSignatureHeader('t=12x,v1=ab')).toEqual({ timestamp: undefined, signatures: ['ab'] });
    expect(parseStripeSignatureHeader('t=1,t=2')).toEqual({ timestamp: 2, signatures: [] });
  });
});
