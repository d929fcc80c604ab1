/**
 * Signatures as the SMS provider and Stripe make them, so that odd bodies get past the
 * signature checks and reach the parsers behind them.
 */
import { createHmac } from 'node:crypto';

/** `X-Provider-Signature` of a receipt body (docs/sms-provider-api.md): sha256=<hex HMAC>. */
export const providerSignature = (body: Buffer, secret: string): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/**
 * `Stripe-Signature` of a webhook body as Stripe signs it: `t=<unix seconds>,v1=<hex
 * HMAC-SHA256 of "t.body">`. Stripe (and the service) refuse it 300 s after `t`.
 */
export const stripeSignature = (body: Buffer, secret: string, timestamp: number): string =>
  `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`;
