import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../db/conditions';
import type { OrderItem } from '../db/items';
import { key } from '../db/keys';

/** Where orders live. */
export interface OrderStore {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** Writes a new order; the id is a fresh UUID, so an existing item under it is a bug, refused by the condition. */
export const putOrder = async (store: OrderStore, order: OrderItem): Promise<void> => {
  await store.db.send(
    new PutCommand({ TableName: store.tableName, Item: order, ConditionExpression: 'attribute_not_exists(PK)' }),
  );
};

/** Records the payment intent of a pending order. */
export const attachPaymentIntent = async (
  store: OrderStore,
  orderId: string,
  paymentIntentId: string,
  now: string,
): Promise<void> => {
  await store.db.send(
    new UpdateCommand({
      TableName: store.tableName,
      Key: key.order(orderId),
      UpdateExpression: 'SET payment_intent_id = :intent, updated_at = :now',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':intent': paymentIntentId, ':now': now },
    }),
  );
};

/** Marks a pending order failed (its holds are released by the caller); a no-op when it moved on already. */
export const markOrderFailed = async (store: OrderStore, orderId: string, reason: string, now: string): Promise<void> => {
  await sendUnlessConditionFails(
    store.db,
    new UpdateCommand({
      TableName: store.tableName,
      Key: key.order(orderId),
      UpdateExpression: 'SET #status = :failed, failure_reason = :reason, updated_at = :now',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':failed': 'failed', ':pending': 'pending', ':reason': reason, ':now': now },
    }),
  );
};

/** One order by id (strongly consistent), or undefined. */
export const getOrder = async (store: OrderStore, orderId: string): Promise<OrderItem | undefined> => {
  const { Item } = await store.db.send(
    new GetCommand({ TableName: store.tableName, Key: key.order(orderId), ConsistentRead: true }),
  );
  return Item as OrderItem | undefined;
};
