import { randomBytes } from 'node:crypto';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random alphanumerics, as in Stripe's ids (`pi_3Q...`, `req_...`). */
export const randomId = (length: number): string =>
  [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');

/** A Stripe-style id with its prefix, e.g. `pi_3Qx...` (24 characters after the prefix). */
export const stripeId = (prefix: string): string => `${prefix}_${randomId(24)}`;
