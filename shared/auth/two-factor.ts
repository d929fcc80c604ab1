import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, type TableKey } from '../db/batch-get';
import type { ApiKeyItem, BearerTokenItem } from '../db/items';
import { key } from '../db/keys';
import { ApiError } from '../errors/api-error';
import { credentialMatches, parseCredential } from './credentials';
import { markFirstUse } from './first-use';
import { scopesOfKey, type ApiKeyScope } from './scopes';

/** What authentication reads: the single table. */
export interface AuthDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** The request headers as API Gateway passes them (any spelling of the names). */
export type RequestHeaders = Record<string, string | undefined> | null | undefined;

/**
 * What authentication reads of a request, as API Gateway passes it: `headers` (the last value
 * of each name) and `multiValueHeaders` (every value; absent in a test's hand-made request,
 * where each name comes once). An APIGatewayProxyEvent is one.
 */
export interface RequestCredentials {
  headers: RequestHeaders;
  multiValueHeaders?: Record<string, string[] | undefined> | null;
}

/** Who is calling an Area A route, once both factors are verified. */
export interface DeveloperCaller {
  /** The bearer token's user. */
  userId: string;
  /** The customer the user belongs to. */
  userCustomerId: string;
  /** The API key's customer: the root of the caller's scope. */
  customerId: string;
  /** The API key's customer path, top-level group first (ends with customerId). */
  customerPath: string[];
  /** The bearer token's user's roles (`developer`, and `admin` who may terminate a SIM). */
  roles: string[];
  /** The API key's scopes (./scopes.ts): what the key may do. */
  scopes: ApiKeyScope[];
}

/** The role Area A requires. */
export const developerRole = 'developer';

/** The header names that carry the API key, in order of preference. */
export const apiKeyHeaders = ['x-customer-api-key', 'x-service-api-key'] as const;

const errors = {
  bearerRequired: () =>
    new ApiError(401, 'bearer_token_required', 'A personal bearer token is required: Authorization: Bearer bearer_<prefix>_<secret>.'),
  invalidBearer: () => new ApiError(401, 'invalid_bearer_token', 'The bearer token is invalid or has been revoked.'),
  apiKeyAsBearer: () =>
    new ApiError(
      401,
      'invalid_bearer_token',
      'This is an API key (devkey_...), not a bearer token: send it in X-Customer-API-Key, and your personal bearer_... token in Authorization: Bearer.',
    ),
  userInactive: () => new ApiError(401, 'user_inactive', "The bearer token's user account is inactive."),
  apiKeyRequired: () =>
    new ApiError(401, 'api_key_required', 'An API key is required in the X-Customer-API-Key (or X-service-API-Key) header.'),
  invalidApiKey: () => new ApiError(401, 'invalid_api_key', 'The API key is invalid or has been revoked.'),
  bearerTwice: () => new ApiError(401, 'invalid_bearer_token', 'The Authorization header was sent more than once: send one bearer token.'),
  apiKeyTwice: (name: string) => new ApiError(401, 'invalid_api_key', `The ${name} header was sent more than once: send one API key.`),
  apiKeysDiffer: () =>
    new ApiError(401, 'invalid_api_key', 'X-Customer-API-Key and X-service-API-Key carry different API keys: send one API key.'),
  developerRequired: () => new ApiError(403, 'developer_access_required', 'The user does not have the developer role.'),
  tenantMismatch: () =>
    new ApiError(403, 'tenant_scope_mismatch', "The API key belongs to a different customer group than the user's."),
};

const headerValue = (headers: RequestHeaders, wanted: string): string | undefined => {
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() === wanted && value !== undefined) return value;
  }
  return undefined;
};

/** The bearer credential of the Authorization header; undefined when there is no Bearer credential at all. */
export const bearerCredential = (headers: RequestHeaders): string | undefined => {
  const authorization = headerValue(headers, 'authorization')?.trim();
  const match = authorization ? /^Bearer\s+(\S.*)$/i.exec(authorization) : null;
  return match ? match[1]!.trim() : undefined;
};

/** How many values a header has in the request (any spelling of its name). */
const valueCount = (request: RequestCredentials, wanted: string): number => {
  if (!request.multiValueHeaders) return headerValue(request.headers, wanted) === undefined ? 0 : 1;
  let count = 0;
  for (const [name, values] of Object.entries(request.multiValueHeaders)) {
    if (name.toLowerCase() === wanted) count += values?.length ?? 0;
  }
  return count;
};

/** The header names of the API key as the documentation spells them. */
const apiKeyHeaderNames: Record<(typeof apiKeyHeaders)[number], string> = {
  'x-customer-api-key': 'X-Customer-API-Key',
  'x-service-api-key': 'X-service-API-Key',
};

/**
 * The error for ambiguous API key headers, or undefined: a key header sent more than once, or
 * both key headers carrying different keys (API Gateway would pass the last value of each, and
 * a last-one-wins choice is a guess the caller did not make).
 */
const ambiguousApiKey = (request: RequestCredentials): ApiError | undefined => {
  for (const name of apiKeyHeaders) if (valueCount(request, name) > 1) return errors.apiKeyTwice(apiKeyHeaderNames[name]);
  const [customer, service] = apiKeyHeaders.map((name) => headerValue(request.headers, name)?.trim());
  return customer && service && customer !== service ? errors.apiKeysDiffer() : undefined;
};

/** The API key of the first non-empty API key header; undefined when none is given. */
export const apiKeyCredential = (headers: RequestHeaders): string | undefined => {
  for (const name of apiKeyHeaders) {
    const value = headerValue(headers, name)?.trim();
    if (value) return value;
  }
  return undefined;
};

/**
 * Verifies both factors of an Area A request and returns the caller, or throws the ApiError
 * of the first failing rule, in the specification's order:
 *
 * 1. no Bearer credential: 401 bearer_token_required;
 * 2. token malformed, unknown, wrong secret or revoked, or the Authorization header sent
 *    more than once: 401 invalid_bearer_token;
 * 3. the token's user inactive: 401 user_inactive;
 * 4. no API key header: 401 api_key_required;
 * 5. key malformed, unknown, wrong secret or revoked, an API key header sent more than once,
 *    or X-Customer-API-Key and X-service-API-Key with different keys: 401 invalid_api_key;
 * 6. the user lacks the developer role: 403 developer_access_required;
 * 7. the key's customer is neither the user's customer nor one of its descendants:
 *    403 tenant_scope_mismatch.
 *
 * Token and key are read in ONE strongly consistent BatchGetItem (so a revocation or a
 * deactivation applies to the very next request); the token item carries its user's state
 * and the key item its customer's path, so nothing else is read. Secrets are compared as
 * SHA-256 hashes in constant time. A malformed bearer token fails before any read.
 * A credential's first successful use also marks it (./first-use.ts: one conditional write,
 * only then), which the table's stream turns into identity.verified.
 */
export const authenticateDeveloper = async (deps: AuthDeps, request: RequestCredentials): Promise<DeveloperCaller> =>
  (await authenticateDeveloperWith(deps, request)).caller;

/**
 * authenticateDeveloper, reading more items (`also`) in the same BatchGetItem: a route's own
 * items, for a request expected to pass (shared/http/developer-route.ts, warm requests). They
 * are returned (in their keys' order) only with a verified caller; a failure throws as
 * authenticateDeveloper.
 */
export const authenticateDeveloperWith = async (
  deps: AuthDeps,
  request: RequestCredentials,
  also?: readonly TableKey[],
): Promise<{ caller: DeveloperCaller; also?: (Record<string, unknown> | undefined)[] }> => {
  const { headers } = request;
  if (valueCount(request, 'authorization') > 1) throw errors.bearerTwice();
  const bearer = bearerCredential(headers);
  if (bearer === undefined) throw errors.bearerRequired();
  const token = parseCredential('bearer', bearer);
  if (!token) throw parseCredential('devkey', bearer) ? errors.apiKeyAsBearer() : errors.invalidBearer();

  const apiKeyValue = apiKeyCredential(headers);
  const keyAmbiguity = apiKeyValue === undefined ? undefined : ambiguousApiKey(request);
  const apiKey = apiKeyValue === undefined || keyAmbiguity ? undefined : parseCredential('devkey', apiKeyValue);
  const tokenKey = key.bearerToken(token.prefix);
  const apiKeyKey = apiKey ? key.apiKey(apiKey.prefix) : undefined;
  const keys = apiKeyKey ? [tokenKey, apiKeyKey] : [tokenKey];
  const items = await batchGetItems(deps.db, deps.tableName, also ? [...keys, ...also] : keys, { consistentRead: true });
  const itemWithKey = (wanted: { PK: string; SK: string }) =>
    items.find((item) => item.PK === wanted.PK && item.SK === wanted.SK);

  const tokenItem = itemWithKey(tokenKey) as BearerTokenItem | undefined;
  if (!tokenItem || tokenItem.type !== 'bearer_token' || !credentialMatches(token.value, tokenItem.secret_hash)) {
    throw errors.invalidBearer();
  }
  if (tokenItem.revoked !== false) throw errors.invalidBearer();
  if (tokenItem.user_active !== true) throw errors.userInactive();

  if (apiKeyValue === undefined) throw errors.apiKeyRequired();
  if (keyAmbiguity) throw keyAmbiguity;
  const keyItem = apiKeyKey ? (itemWithKey(apiKeyKey) as ApiKeyItem | undefined) : undefined;
  if (!apiKey || !keyItem || keyItem.type !== 'api_key' || !credentialMatches(apiKey.value, keyItem.secret_hash)) {
    throw errors.invalidApiKey();
  }
  if (keyItem.revoked !== false) throw errors.invalidApiKey();

  if (!(tokenItem.user_roles ?? []).includes(developerRole)) throw errors.developerRequired();
  if (!(keyItem.customer_path ?? []).includes(tokenItem.user_customer_id)) throw errors.tenantMismatch();

  await markFirstUse(deps, [{ key: tokenKey, verified_at: tokenItem.verified_at }, { key: apiKeyKey!, verified_at: keyItem.verified_at }], new Date().toISOString());

  const caller = {
    userId: tokenItem.user_id,
    userCustomerId: tokenItem.user_customer_id,
    customerId: keyItem.customer_id,
    customerPath: [...keyItem.customer_path],
    roles: [...(tokenItem.user_roles ?? [])],
    scopes: scopesOfKey(keyItem.scopes),
  };
  return also ? { caller, also: also.map(itemWithKey) } : { caller };
};
