import type { ApiKeyItem, BearerTokenItem } from '../db/items';
import { gsi1, key } from '../db/keys';
import { credentialHash } from './credentials';
import type { ApiKeyScope } from './scopes';

/** A credential as stored: its prefix, the whole plain-text value (hashed here) and its state. */
export interface CredentialToStore {
  prefix: string;
  value: string;
  revoked: boolean;
  /**
   * When it first authenticated (identity.verified is made when this appears); the seed loader
   * sets it to the load time (the credentials of a seed document are already in use), the
   * admin CLI leaves it absent (a new credential).
   */
  verifiedAt?: string;
}

/**
 * The stored item of a personal bearer token: only the hash of the whole token, plus the
 * copy of its user's state that authentication reads in the same request. The seed loader
 * and the admin CLI both build tokens with this, so they can never disagree with auth.
 */
export const bearerTokenItem = (
  token: CredentialToStore,
  user: { id: string; active: boolean; roles: readonly string[]; customerId: string },
): BearerTokenItem => ({
  ...key.bearerToken(token.prefix),
  ...gsi1.tokenOfUser(user.id, token.prefix),
  type: 'bearer_token',
  prefix: token.prefix,
  secret_hash: credentialHash(token.value),
  user_id: user.id,
  revoked: token.revoked,
  user_active: user.active,
  user_roles: [...user.roles],
  user_customer_id: user.customerId,
  ...(token.verifiedAt ? { verified_at: token.verifiedAt } : {}),
});

/**
 * The stored item of a customer-group API key: only the hash of the whole key, plus the
 * customer's path that scoping reads and the key's scopes (shared/auth/scopes.ts). Shared by
 * the seed loader and the admin CLI.
 */
export const apiKeyItem = (apiKey: CredentialToStore & { scopes: readonly ApiKeyScope[] }, customer: { id: string; path: readonly string[] }): ApiKeyItem => ({
  ...key.apiKey(apiKey.prefix),
  type: 'api_key',
  prefix: apiKey.prefix,
  secret_hash: credentialHash(apiKey.value),
  customer_id: customer.id,
  customer_path: [...customer.path],
  revoked: apiKey.revoked,
  scopes: [...apiKey.scopes],
  ...(apiKey.verifiedAt ? { verified_at: apiKey.verifiedAt } : {}),
});
