import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, sendUnlessConditionFails } from '../db/conditions';
import type { WebhookSubscriptionItem } from '../db/items';
import { key } from '../db/keys';

/** Where a subscription's health is kept, and how many failed events in a row make it `failing`. */
export interface SubscriptionHealthDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** Events in a row that exhausted their retries before a subscription is marked `failing`. */
  failingAfterEvents: number;
}

/** A delivered event: the subscription's run of failed events ends and it is `active` again. */
export const markHealthy = async (deps: SubscriptionHealthDeps, subscription: WebhookSubscriptionItem): Promise<void> => {
  if (subscription.failed_events_in_a_row === 0 && subscription.status === 'active') return;
  await sendUnlessConditionFails(
    deps.db,
    new UpdateCommand({
      TableName: deps.tableName,
      Key: key.webhookSubscription(subscription.customer_id, subscription.id),
      UpdateExpression: 'SET failed_events_in_a_row = :zero, #status = :active REMOVE failing_since',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':zero': 0, ':active': 'active' },
    }),
  );
};

/** An event that exhausted its attempts: counted, and at `failingAfterEvents` in a row the subscription is `failing`. */
export const countFailedEvent = async (deps: SubscriptionHealthDeps, subscription: WebhookSubscriptionItem, nowIso: string): Promise<void> => {
  const subscriptionKey = key.webhookSubscription(subscription.customer_id, subscription.id);
  try {
    const counted = await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: subscriptionKey,
        UpdateExpression: 'ADD failed_events_in_a_row :one',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const after = counted.Attributes as WebhookSubscriptionItem;
    if (after.failed_events_in_a_row >= deps.failingAfterEvents && after.status !== 'failing') {
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: subscriptionKey,
          UpdateExpression: 'SET #status = :failing, failing_since = :now',
          ConditionExpression: 'attribute_exists(PK) AND #status <> :failing',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':failing': 'failing', ':now': nowIso },
        }),
      );
    }
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};
