import {
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { cancellationCodes, isConditionFailure, sendUnlessConditionFails } from '../db/conditions';
import type { ApiKeyItem, BearerTokenItem, CustomerItem, UserItem } from '../db/items';
import { gsi1Partition, key, sortKeyPrefix } from '../db/keys';
import { queryPages } from '../db/query-pages';
import { apiKeyItem, bearerTokenItem } from './credential-items';
import { generateCredential, prefixOf } from './credentials';
import { defaultApiKeyScopes, type ApiKeyScope } from './scopes';

/**
 * Administration of Area A credentials (used by the admin CLI, admin/cli.ts, against any table):
 * issuing and revoking bearer tokens and API keys, and (de)activating users. Items are
 * written exactly as the seed loader writes them (shared/db/items.ts).
 */

/** The table to administer. */
export interface AdminDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** A failure the operator can act on (unknown user, customer, prefix ...). */
export class AdminError extends Error {
  override name = 'AdminError';
}

/** A newly issued credential: the whole string is shown once and never stored. */
export interface IssuedCredential {
  prefix: string;
  value: string;
}

/** A failed condition: of a single write, or one that cancelled a transaction. */
const conditionFailed = (error: unknown): boolean => {
  if (isConditionFailure(error)) return true;
  return cancellationCodes(error).includes('ConditionalCheckFailed');
};

/** Most items in one TransactWriteItems call. */
const maxTransactionItems = 100;

const getItem = async <T>(deps: AdminDeps, itemKey: { PK: string; SK: string }): Promise<T | undefined> =>
  (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: itemKey, ConsistentRead: true }))).Item as T | undefined;

/** The check on a credential's owner item that its issue depends on. */
type OwnerCheck = { Key: { PK: string; SK: string }; ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> };

/**
 * Puts a new credential item in one transaction with `ownerCheck` on its owner's item: nothing
 * is written when the owner no longer holds (`ownerChanged` says how) or the prefix is taken.
 */
const putCredentialIfOwnerHolds = async (deps: AdminDeps, item: BearerTokenItem | ApiKeyItem, ownerCheck: OwnerCheck, ownerChanged: string): Promise<void> => {
  try {
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: [
          { ConditionCheck: { TableName: deps.tableName, ...ownerCheck } },
          { Put: { TableName: deps.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
        ],
      }),
    );
  } catch (error) {
    if (conditionFailed(error)) throw new AdminError(`${ownerChanged} or the prefix is taken; run the command again`);
    throw error;
  }
};

/**
 * Issues a bearer token for a user: a random `bearer_<prefix>_<secret>`, stored as its hash
 * with a copy of the user's state (active, roles, customer). The token is written in a
 * transaction that also checks the user still has exactly that state, so a concurrent
 * deactivation cannot leave an active copy behind; a prefix collision is refused.
 */
export const issueBearerToken = async (deps: AdminDeps, userId: string): Promise<IssuedCredential> => {
  const user = await getItem<UserItem>(deps, key.user(userId));
  if (!user || user.type !== 'user') throw new AdminError(`no user with id "${userId}"`);
  const credential = generateCredential('bearer');
  const item = bearerTokenItem(
    { ...credential, revoked: false },
    { id: user.id, active: user.active, roles: user.roles, customerId: user.customer_id },
  );
  await putCredentialIfOwnerHolds(
    deps,
    item,
    {
      Key: key.user(user.id),
      ConditionExpression: 'active = :active AND customer_id = :customer',
      ExpressionAttributeValues: { ':active': user.active, ':customer': user.customer_id },
    },
    'the user changed',
  );
  return { prefix: credential.prefix, value: credential.value };
};

/**
 * Issues an API key for a customer group: a random `devkey_<prefix>_<secret>`, stored as its
 * hash with the customer's path (its tenant scope) and its scopes (default: sims:read and
 * sms:send, what every key could do before issue #33). A prefix collision is refused.
 */
export const issueApiKey = async (deps: AdminDeps, customerId: string, scopes: readonly ApiKeyScope[] = defaultApiKeyScopes): Promise<IssuedCredential> => {
  const customer = await getItem<CustomerItem>(deps, key.customer(customerId));
  if (!customer || customer.type !== 'customer') throw new AdminError(`no customer with id "${customerId}"`);
  const credential = generateCredential('devkey');
  const item = apiKeyItem({ ...credential, revoked: false, scopes }, { id: customer.id, path: customer.path });
  await putCredentialIfOwnerHolds(deps, item, { Key: key.customer(customer.id), ConditionExpression: 'attribute_exists(PK)' }, 'the customer was removed');
  return { prefix: credential.prefix, value: credential.value };
};

const revoke = async (deps: AdminDeps, itemKey: { PK: string; SK: string }, what: string): Promise<void> => {
  const revoked = await sendUnlessConditionFails(
    deps.db,
    new UpdateCommand({
      TableName: deps.tableName,
      Key: itemKey,
      UpdateExpression: 'SET revoked = :true',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':true': true },
    }),
  );
  if (!revoked) throw new AdminError(`no ${what}`);
};

/** Revokes a bearer token, named by its prefix or the whole token; effective on the next request. */
export const revokeBearerToken = async (deps: AdminDeps, prefixOrToken: string): Promise<string> => {
  const prefix = prefixOf('bearer', prefixOrToken);
  if (!prefix) throw new AdminError('give a token prefix (letters and digits) or a whole bearer_<prefix>_<secret> token');
  await revoke(deps, key.bearerToken(prefix), `bearer token with prefix "${prefix}"`);
  return prefix;
};

/** Revokes an API key, named by its prefix or the whole key; effective on the next request. */
export const revokeApiKey = async (deps: AdminDeps, prefixOrKey: string): Promise<string> => {
  const prefix = prefixOf('devkey', prefixOrKey);
  if (!prefix) throw new AdminError('give a key prefix (letters and digits) or a whole devkey_<prefix>_<secret> key');
  await revoke(deps, key.apiKey(prefix), `API key with prefix "${prefix}"`);
  return prefix;
};

/**
 * Sets the scopes of an API key, named by its prefix or the whole key (issue #33): effective on
 * the next request (authentication reads the key item strongly consistent). Returns the prefix.
 */
export const setApiKeyScopes = async (deps: AdminDeps, prefixOrKey: string, scopes: readonly ApiKeyScope[]): Promise<string> => {
  const prefix = prefixOf('devkey', prefixOrKey);
  if (!prefix) throw new AdminError('give a key prefix (letters and digits) or a whole devkey_<prefix>_<secret> key');
  const written = await sendUnlessConditionFails(
    deps.db,
    new UpdateCommand({
      TableName: deps.tableName,
      Key: key.apiKey(prefix),
      UpdateExpression: 'SET scopes = :scopes',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':scopes': [...scopes] },
    }),
  );
  if (!written) throw new AdminError(`no API key with prefix "${prefix}"`);
  return prefix;
};

/** The token items' keys of a user, through GSI1 tokenOfUser. */
const tokenKeysOfUser = async (deps: AdminDeps, userId: string): Promise<{ PK: string; SK: string }[]> => {
  const keys: { PK: string; SK: string }[] = [];
  for await (const page of queryPages(deps.db, {
    TableName: deps.tableName,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk AND begins_with(GSI1SK, :token)',
    ExpressionAttributeValues: { ':pk': gsi1Partition.tokensOfUser(userId), ':token': sortKeyPrefix.tokensOfUser },
    ProjectionExpression: 'PK, SK',
  })) {
    keys.push(...(page as { PK: string; SK: string }[]));
  }
  return keys;
};

/**
 * Sets a user active or inactive, together with the `user_active` copy on every one of the
 * user's bearer tokens (found through GSI1), in one transaction (up to 99 tokens; a user with
 * more is updated in several transactions, the user item in the first). Authentication reads
 * the token's copy, so a deactivated user's next request is refused. Returns the number of
 * tokens updated.
 */
export const setUserActive = async (deps: AdminDeps, userId: string, active: boolean): Promise<number> => {
  const user = await getItem<UserItem>(deps, key.user(userId));
  if (!user || user.type !== 'user') throw new AdminError(`no user with id "${userId}"`);
  const tokens = await tokenKeysOfUser(deps, userId);
  const updates = [
    { Key: key.user(userId), UpdateExpression: 'SET active = :active' },
    ...tokens.map((tokenKey) => ({ Key: { PK: tokenKey.PK, SK: tokenKey.SK }, UpdateExpression: 'SET user_active = :active' })),
  ];
  for (let start = 0; start < updates.length; start += maxTransactionItems) {
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: updates.slice(start, start + maxTransactionItems).map((update) => ({
          Update: {
            TableName: deps.tableName,
            ...update,
            ConditionExpression: 'attribute_exists(PK)',
            ExpressionAttributeValues: { ':active': active },
          },
        })),
      }),
    );
  }
  return tokens.length;
};
