/** Shape of a bearer token: `bearer_<prefix>_<secret>`, prefix alphanumeric, secret printable ASCII. */
export const bearerTokenPattern = /^bearer_([A-Za-z0-9]+)_([\x21-\x7E]+)$/;

/** Shape of an API key: `devkey_<prefix>_<secret>`, prefix alphanumeric, secret printable ASCII. */
export const apiKeyPattern = /^devkey_([A-Za-z0-9]+)_([\x21-\x7E]+)$/;

/** The prefix (lookup key) of a bearer token or API key of the right shape; undefined otherwise. */
export const credentialPrefix = (value: unknown, pattern: RegExp): string | undefined =>
  typeof value === 'string' ? pattern.exec(value)?.[1] : undefined;
