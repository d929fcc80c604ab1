import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * The two Area A credentials as strings: a personal bearer token `bearer_<prefix>_<secret>`
 * and a customer-group API key `devkey_<prefix>_<secret>`. The prefix (letters and digits)
 * is the lookup key of the stored item; the secret is printable ASCII. Only the SHA-256 of
 * the whole string is stored (the same shapes and hash as the seed loader's).
 */

/** Which credential a string is. */
export type CredentialKind = 'bearer' | 'devkey';

/**
 * The shape of each credential: `<kind>_<prefix>_<secret>`, prefix 1 to 64 letters and digits
 * (group 1; issued ones have 12, and the bound keeps any presented prefix far inside DynamoDB's
 * key size, so an absurd one is simply invalid), secret printable ASCII (group 2). The seed
 * loader checks its credentials against these, so that it accepts exactly what
 * authentication parses.
 */
export const credentialPatterns: Readonly<Record<CredentialKind, RegExp>> = {
  bearer: /^bearer_([A-Za-z0-9]{1,64})_([\x21-\x7E]+)$/,
  devkey: /^devkey_([A-Za-z0-9]{1,64})_([\x21-\x7E]+)$/,
};

/** A well-formed credential: the whole string and its prefix. */
export interface ParsedCredential {
  value: string;
  prefix: string;
}

/** The credential if `value` has the shape of `kind`; undefined otherwise. */
export const parseCredential = (kind: CredentialKind, value: string): ParsedCredential | undefined => {
  const match = credentialPatterns[kind].exec(value);
  return match ? { value, prefix: match[1]! } : undefined;
};

/** The stored form of a credential: SHA-256 (hex) of the whole string. */
export const credentialHash = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

/**
 * Whether `value` hashes to `storedHash`, compared in constant time so that the comparison
 * leaks nothing about how much of the hash matched. A malformed stored hash never matches.
 */
export const credentialMatches = (value: string, storedHash: unknown): boolean => {
  if (typeof storedHash !== 'string' || !/^[0-9a-f]{64}$/i.test(storedHash)) return false;
  return timingSafeEqual(Buffer.from(credentialHash(value), 'hex'), Buffer.from(storedHash, 'hex'));
};

/**
 * A new random credential of `kind`: a 12-character hexadecimal prefix and a 64-character
 * hexadecimal secret (256 bits), both from the operating system's CSPRNG.
 */
export const generateCredential = (kind: CredentialKind): ParsedCredential => {
  const prefix = randomBytes(6).toString('hex');
  const secret = randomBytes(32).toString('hex');
  return { value: `${kind}_${prefix}_${secret}`, prefix };
};

/** The prefix named by a CLI argument that is either a whole credential of `kind` or just its prefix. */
export const prefixOf = (kind: CredentialKind, prefixOrCredential: string): string | undefined => {
  const parsed = parseCredential(kind, prefixOrCredential);
  if (parsed) return parsed.prefix;
  return /^[A-Za-z0-9]+$/.test(prefixOrCredential) ? prefixOrCredential : undefined;
};
