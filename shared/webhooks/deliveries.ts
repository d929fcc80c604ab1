import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { WebhookDeliveryItem } from '../db/items';
import { key, partition, sortKeyPrefix } from '../db/keys';
import { isoWithOffset } from '../sims/sim-object';
import type { EventType } from './event-types';
import type { WebhookDeliveryView } from './schemas';
import type { SubscriptionTable } from './subscriptions';

/** How long a delivery attempt is kept (TTL). */
export const deliveryRetentionDays = 30;

/** How many attempts GET .../deliveries/ answers. */
export const recentDeliveriesLimit = 100;

/** One attempt to record. */
export interface DeliveryAttempt {
  customerId: string;
  subscriptionId: string;
  eventId: string;
  eventType: EventType;
  attempt: number;
  outcome: 'delivered' | 'failed';
  httpStatus?: number;
  error?: string;
  attemptedAtMs: number;
  nextAttemptAtMs?: number;
}

/** Records one delivery attempt (one PutItem), for GET .../deliveries/ and the local console. */
export const recordDeliveryAttempt = async (table: SubscriptionTable, attempt: DeliveryAttempt): Promise<void> => {
  const item: WebhookDeliveryItem = {
    ...key.webhookDelivery(attempt.customerId, attempt.subscriptionId, attempt.attemptedAtMs, attempt.eventId, attempt.attempt),
    type: 'webhook_delivery',
    subscription_id: attempt.subscriptionId,
    event_id: attempt.eventId,
    event_type: attempt.eventType,
    attempt: attempt.attempt,
    outcome: attempt.outcome,
    http_status: attempt.httpStatus ?? null,
    error: attempt.error ?? null,
    attempted_at: isoWithOffset(attempt.attemptedAtMs),
    next_attempt_at: attempt.nextAttemptAtMs === undefined ? null : isoWithOffset(attempt.nextAttemptAtMs),
    expires_at: Math.floor(attempt.attemptedAtMs / 1000) + deliveryRetentionDays * 86_400,
  };
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: item }));
};

/** A recorded attempt as the API shows it. */
export const deliveryView = (item: WebhookDeliveryItem): WebhookDeliveryView => ({
  event_id: item.event_id,
  type: item.event_type as EventType,
  attempt: item.attempt,
  outcome: item.outcome,
  http_status: item.http_status,
  error: item.error,
  attempted_at: item.attempted_at,
  next_attempt_at: item.next_attempt_at,
});

/** The most recent attempts of a subscription, newest first (one Query, descending). */
export const listDeliveries = async (
  table: SubscriptionTable,
  customerId: string,
  subscriptionId: string,
  limit = recentDeliveriesLimit,
): Promise<WebhookDeliveryItem[]> => {
  const found = await table.db.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': partition.webhookDeliveries(customerId, subscriptionId), ':prefix': sortKeyPrefix.webhookDelivery },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (found.Items ?? []) as WebhookDeliveryItem[];
};
