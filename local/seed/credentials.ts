import { credentialPatterns } from '../../shared/auth/credentials';

/** Shape of a bearer token: `bearer_<prefix>_<secret>`, as authentication parses it (prefix alphanumeric, secret printable ASCII). */
export const bearerTokenPattern = credentialPatterns.bearer;

/** Shape of an API key: `devkey_<prefix>_<secret>`, as authentication parses it (prefix alphanumeric, secret printable ASCII). */
export const apiKeyPattern = credentialPatterns.devkey;

/** The prefix (lookup key) of a bearer token or API key of the right shape; undefined otherwise. */
export const credentialPrefix = (value: unknown, pattern: RegExp): string | undefined =>
  typeof value === 'string' ? pattern.exec(value)?.[1] : undefined;
