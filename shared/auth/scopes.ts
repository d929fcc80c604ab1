/**
 * What an API key may do (issue #33): its scopes, stored with the key (`scopes` on the key item,
 * set by the seed's `api_keys[].scopes` and the admin CLI). Each Area A route names the scope it
 * needs (shared/http/developer/require-scope.ts); a key without it is 403 `insufficient_scope`.
 * This module imports nothing: the seed loader, the admin CLI and the runtime read it alike.
 */

/** Every scope a key can have, in the order the documentation lists them. */
export const apiKeyScopes = ['sims:read', 'sms:send', 'sims:manage'] as const;

/** One scope. */
export type ApiKeyScope = (typeof apiKeyScopes)[number];

/**
 * The scopes of a key stored without any (every key issued before issue #33, a seed entry
 * without `scopes`): what every key could do until then, read SIMs and send SMS.
 */
export const defaultApiKeyScopes: readonly ApiKeyScope[] = ['sims:read', 'sms:send'];

/** Whether a value names a scope (looked up as data: `constructor` is no scope). */
export const isApiKeyScope = (value: unknown): value is ApiKeyScope => typeof value === 'string' && (apiKeyScopes as readonly string[]).includes(value);

/**
 * The scopes of a stored key: its `scopes` when it has them (unknown names dropped, duplicates
 * once, in the documentation's order), else the default ones.
 */
export const scopesOfKey = (stored: unknown): ApiKeyScope[] => {
  if (!Array.isArray(stored)) return [...defaultApiKeyScopes];
  return apiKeyScopes.filter((scope) => stored.includes(scope));
};
