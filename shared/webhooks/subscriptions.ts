import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { cancellationCodes, isConditionFailure, isTransactionCanceled } from '../db/conditions';
import type { RetiredWebhookSecret, WebhookSubscriptionItem } from '../db/items';
import { key, partition, sortKeyPrefix } from '../db/keys';
import { isoWithOffset } from '../sims/sim-object';
import type { EventType } from './event-types';
import type { WebhookSubscriptionView } from './schemas';

/** The table a subscription lives in. */
export interface SubscriptionTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** At most this many subscriptions per customer (issue #15). */
export const maxSubscriptionsPerCustomer = 10;

/** How long a retired secret keeps signing after the rotation that retired it. */
export const previousSecretLifetimeMs = 24 * 60 * 60 * 1000;

/** At most this many retired secrets sign beside the current one (the most recently retired). */
export const maxRetiredSecrets = 3;

/**
 * A subscription's retired secrets that still sign at `nowMs`, newest first: those of
 * `retired_secrets`, or the one `previous_secret_*` of an item written before it existed.
 */
export const retiredSecretsOf = (item: WebhookSubscriptionItem, nowMs: number): RetiredWebhookSecret[] => {
  const retired =
    item.retired_secrets ??
    (item.previous_secret_sealed ? [{ sealed: item.previous_secret_sealed, expires_at_ms: item.previous_secret_expires_at_ms ?? 0 }] : []);
  return retired.filter((secret) => secret.expires_at_ms > nowMs).slice(0, maxRetiredSecrets);
};

/** Why a subscription could not be created: the customer has the maximum already. */
export class SubscriptionLimitReached extends Error {
  override name = 'SubscriptionLimitReached';
}

/** A subscription as the API shows it: never its secret. */
export const subscriptionView = (item: WebhookSubscriptionItem): WebhookSubscriptionView => ({
  id: item.id,
  url: item.url,
  events: item.events as EventType[],
  description: item.description ?? null,
  status: item.status,
  created_at: item.created_at,
});

/** The subscription item of a read item; undefined when it is none. */
export const subscriptionItemOf = (item: Record<string, unknown> | undefined): WebhookSubscriptionItem | undefined =>
  item?.type === 'webhook_subscription' ? (item as unknown as WebhookSubscriptionItem) : undefined;

/** What a new subscription is made of (its id and sealed secret chosen by the caller). */
export interface NewSubscription {
  id: string;
  customerId: string;
  url: string;
  events: EventType[];
  description: string | null;
  secretSealed: string;
  nowMs: number;
}

/**
 * Writes a new subscription and counts it, in one transaction: the subscription is put only if
 * its id is new, and the customer's count is raised only while it is below 10 (so concurrent
 * creations can never pass the limit). Throws SubscriptionLimitReached at the limit.
 */
export const createSubscription = async (table: SubscriptionTable, input: NewSubscription): Promise<WebhookSubscriptionItem> => {
  const item: WebhookSubscriptionItem = {
    ...key.webhookSubscription(input.customerId, input.id),
    type: 'webhook_subscription',
    id: input.id,
    customer_id: input.customerId,
    url: input.url,
    events: input.events,
    description: input.description,
    status: 'active',
    created_at: isoWithOffset(input.nowMs),
    secret_sealed: input.secretSealed,
    failed_events_in_a_row: 0,
  };
  try {
    await table.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table.tableName,
              Key: key.webhookCount(input.customerId),
              UpdateExpression: 'SET #type = :type ADD #count :one',
              ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
              ExpressionAttributeNames: { '#type': 'type', '#count': 'count' },
              ExpressionAttributeValues: { ':type': 'webhook_count', ':one': 1, ':max': maxSubscriptionsPerCustomer },
            },
          },
          { Put: { TableName: table.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' } },
        ],
      }),
    );
  } catch (error) {
    if (cancellationCodes(error)[0] === 'ConditionalCheckFailed') throw new SubscriptionLimitReached();
    throw error;
  }
  return item;
};

/** Every subscription of one customer, oldest first (one Query; ten items at most). */
export const listSubscriptions = async (table: SubscriptionTable, customerId: string): Promise<WebhookSubscriptionItem[]> => {
  const found = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': partition.customer(customerId), ':prefix': sortKeyPrefix.webhookSubscription },
    }),
  );
  return (found.Items ?? [])
    .map((item) => subscriptionItemOf(item))
    .filter((item): item is WebhookSubscriptionItem => item !== undefined)
    .sort((left, right) => left.created_at.localeCompare(right.created_at) || left.id.localeCompare(right.id));
};

/** One subscription of a customer; undefined when the customer has none with that id. */
export const readSubscription = async (
  table: SubscriptionTable,
  customerId: string,
  subscriptionId: string,
  consistent = false,
): Promise<WebhookSubscriptionItem | undefined> =>
  subscriptionItemOf(
    (
      await table.db.send(
        new GetCommand({ TableName: table.tableName, Key: key.webhookSubscription(customerId, subscriptionId), ConsistentRead: consistent }),
      )
    ).Item,
  );

/**
 * Deletes a subscription and uncounts it in one transaction; false when it was gone already
 * (a concurrent delete). Its delivery attempts stay until their TTL.
 */
export const deleteSubscription = async (table: SubscriptionTable, customerId: string, subscriptionId: string): Promise<boolean> => {
  try {
    await table.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: table.tableName,
              Key: key.webhookSubscription(customerId, subscriptionId),
              ConditionExpression: 'attribute_exists(PK)',
            },
          },
          {
            Update: {
              TableName: table.tableName,
              Key: key.webhookCount(customerId),
              UpdateExpression: 'ADD #count :minusOne',
              ConditionExpression: '#count > :zero',
              ExpressionAttributeNames: { '#count': 'count' },
              ExpressionAttributeValues: { ':minusOne': -1, ':zero': 0 },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isTransactionCanceled(error)) return false;
    throw error;
  }
};

/**
 * Replaces a subscription's secret: the new one signs from now on, the current one keeps
 * signing beside it for 24 hours, and so do the secrets retired before it that are younger
 * than that, up to the 3 most recently retired (a second rotation within the day does not
 * end the first one's grace; issue #22). Conditional on the secret read, so of two concurrent
 * rotations one wins and the other is refused (undefined, as for a subscription that is gone).
 */
export const rotateSubscriptionSecret = async (
  table: SubscriptionTable,
  current: WebhookSubscriptionItem,
  newSecretSealed: string,
  nowMs: number,
): Promise<WebhookSubscriptionItem | undefined> => {
  try {
    const result = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key.webhookSubscription(current.customer_id, current.id),
        UpdateExpression: 'SET secret_sealed = :new, retired_secrets = :retired REMOVE previous_secret_sealed, previous_secret_expires_at_ms',
        ConditionExpression: 'secret_sealed = :old',
        ExpressionAttributeValues: {
          ':new': newSecretSealed,
          ':old': current.secret_sealed,
          ':retired': [{ sealed: current.secret_sealed, expires_at_ms: nowMs + previousSecretLifetimeMs }, ...retiredSecretsOf(current, nowMs)].slice(
            0,
            maxRetiredSecrets,
          ),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return subscriptionItemOf(result.Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};
