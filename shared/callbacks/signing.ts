import { createHmac, timingSafeEqual } from 'node:crypto';

/** Prefix of a Standard Webhooks signing secret. */
const secretPrefix = 'whsec_';

/**
 * The receipt signing secret of one customer, `whsec_<base64 of 32 bytes>`, derived as
 * HMAC-SHA256(master secret, customer id). Nothing per customer is stored: the same master
 * (CALLBACK_SIGNING_SECRET) always gives the same customer secret, and rotating the master
 * rotates every customer's secret at once.
 */
export const customerWebhookSecret = (masterSecret: string, customerId: string): string =>
  secretPrefix + createHmac('sha256', masterSecret).update(customerId, 'utf8').digest('base64');

const secretBytes = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');

/**
 * The Standard Webhooks signature header value for one delivery: `v1,<base64 HMAC-SHA256 of
 * "<id>.<timestamp>.<body>">`, keyed with the base64-decoded part of the `whsec_` secret.
 */
export const webhookSignature = (secret: string, id: string, timestampSeconds: number, body: string): string =>
  'v1,' + createHmac('sha256', secretBytes(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8').digest('base64');

/**
 * The `webhook-signature` value for several secrets: one `v1,` signature each, space-separated
 * (Standard Webhooks), so a receiver holding any of them verifies (a rotation's 24 hours).
 */
export const webhookSignatures = (secrets: readonly string[], id: string, timestampSeconds: number, body: string): string =>
  secrets.map((secret) => webhookSignature(secret, id, timestampSeconds, body)).join(' ');

/** The three Standard Webhooks headers of one delivery, signed with one secret or several. */
export const webhookHeaders = (
  secrets: string | readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> => ({
  'webhook-id': id,
  'webhook-timestamp': String(timestampSeconds),
  'webhook-signature': webhookSignatures(typeof secrets === 'string' ? [secrets] : secrets, id, timestampSeconds, body),
});

/**
 * Verifies Standard Webhooks headers the way a receiver does: one of the space-separated
 * `v1,` signatures matches (constant-time) and the timestamp is within `toleranceSeconds`
 * of `nowSeconds`. Provided for receivers written in TypeScript and for the tests.
 */
export const verifyWebhook = (
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = 300,
): boolean => {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(webhookSignature(secret, headers.id, timestamp, body).slice(3), 'base64');
  return headers.signature.split(' ').some((candidate) => {
    if (!candidate.startsWith('v1,')) return false;
    const given = Buffer.from(candidate.slice(3), 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
};

/**
 * The webhook-id of a receipt: stable per message and status, so a receiver can de-duplicate.
 * The message id is percent-encoded (it may hold any character, and header values must be
 * ASCII), then `:` and the status.
 */
export const receiptWebhookId = (messageId: string, status: string): string =>
  `${encodeURIComponent(messageId)}:${status}`;
