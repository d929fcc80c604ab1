import { createHash } from 'node:crypto';

/**
 * The stored form of a bearer token or API key: the SHA-256 hex digest of the whole string
 * (`bearer_<prefix>_<secret>`, `devkey_<prefix>_<secret>`). The plain text is never stored.
 */
export const secretHash = (wholeSecret: string): string => createHash('sha256').update(wholeSecret, 'utf8').digest('hex');
