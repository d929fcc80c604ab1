import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * How a subscription's signing secret is kept in the table: sealed with AES-256-GCM under a
 * key derived from the WEBHOOK_SECRETS_KEY secret (Secrets Manager when deployed), with the
 * subscription id as associated data, so a copy of the table (a backup, an export, a read-only
 * role) holds no usable secret and a sealed value cannot be moved to another subscription.
 * The secret itself is needed to sign (HMAC), so a hash would not do. Format:
 * `v1.<base64url nonce>.<base64url ciphertext + tag>`.
 *
 * WEBHOOK_SECRETS_KEY is a key-encryption key: changing its value makes every stored secret
 * unreadable (deliveries then fail and the subscriptions must rotate their secret), so it is
 * set once per stage (docs/webhooks.md).
 */

const version = 'v1';

/** The AES key of a WEBHOOK_SECRETS_KEY value: SHA-256 of it, so any length of secret text gives 256 bits. */
const aesKey = (keyMaterial: string): Buffer => createHash('sha256').update(`webhook-secrets:${keyMaterial}`, 'utf8').digest();

/** Seals `secret` for the subscription `subscriptionId`. */
export const sealSecret = (keyMaterial: string, subscriptionId: string, secret: string): string => {
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey(keyMaterial), nonce);
  cipher.setAAD(Buffer.from(subscriptionId, 'utf8'));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${version}.${nonce.toString('base64url')}.${sealed.toString('base64url')}`;
};

/** Opens a value sealed by sealSecret for the same subscription; throws when the key or the subscription differs. */
export const openSecret = (keyMaterial: string, subscriptionId: string, sealed: string): string => {
  const [given, nonce, body] = sealed.split('.');
  if (given !== version || !nonce || !body) throw new Error('not a sealed webhook secret');
  const bytes = Buffer.from(body, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', aesKey(keyMaterial), Buffer.from(nonce, 'base64url'));
  decipher.setAAD(Buffer.from(subscriptionId, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString('utf8');
};

/** A new Standard Webhooks signing secret: `whsec_` and 32 random bytes in base64 (256 bits). */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The shape of a subscription id: `wh_` and 24 hexadecimal digits (./schemas.ts documents it). */
export const subscriptionIdPattern = /^wh_[0-9a-f]{24}$/;

/** A new subscription id: `wh_` and 24 hexadecimal digits (96 random bits). */
export const newSubscriptionId = (): string => `wh_${randomBytes(12).toString('hex')}`;

/** True when `value` has the shape of a subscription id (anything else is simply not found). */
export const isSubscriptionId = (value: unknown): value is string => typeof value === 'string' && subscriptionIdPattern.test(value);
