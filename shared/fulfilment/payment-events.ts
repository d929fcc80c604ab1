import { PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../db/conditions';
import type { PaymentEventItem } from '../db/items';
import { gsi1, gsi1Partition, key } from '../db/keys';
import { queryPages } from '../db/query-pages';
import type { FulfilmentMessage } from './message';

/** Where payment-event records are kept: the service table. */
export interface PaymentEventStore {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** A finished record stays this long (TTL) as the trace of the event, then DynamoDB removes it. */
export const finishedRecordDays = 30;

/**
 * Records a verified payment event before the webhook puts it on the fulfilment queue: one
 * conditional PutItem of `PAYMENT_EVENT#<event id>` (`unfinished`, with the message body
 * exactly as it is sent), in the sparse GSI1 partition of unfinished events. A repeated
 * delivery of the same event finds it already there and changes nothing (false); the
 * caller queues the message again all the same, since the consumer is idempotent.
 */
export const recordPaymentEvent = async (
  store: PaymentEventStore,
  message: FulfilmentMessage,
  body: string,
  now: Date,
): Promise<boolean> => {
  const receivedAt = now.toISOString();
  const item: PaymentEventItem = {
    ...key.paymentEvent(message.event_id),
    ...gsi1.unfinishedPaymentEvent(receivedAt, message.event_id),
    type: 'payment_event',
    event_id: message.event_id,
    order_id: message.order_id,
    status: 'unfinished',
    message: body,
    received_at: receivedAt,
  };
  return sendUnlessConditionFails(
    store.db,
    new PutCommand({ TableName: store.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }),
  );
};

/**
 * Closes the record of an event the consumer is done with: `finished` with its outcome
 * (fulfilled, flagged for review, ignored, ...) or `dead_lettered` with its last error (the
 * message goes to the dead-letter queue, where a person redrives it). The record leaves the
 * unfinished index and expires after finishedRecordDays. Only an `unfinished` record
 * changes, or a `dead_lettered` one that a redrive of the dead-letter queue finished: a
 * redelivery or a replay of a finished event leaves it as it is; a message queued without a
 * record (an event fixture) writes nothing. True when it changed the record.
 */
export const closePaymentEvent = (
  store: PaymentEventStore,
  eventId: string,
  status: 'finished' | 'dead_lettered',
  outcome: string,
  now: Date,
): Promise<boolean> =>
  sendUnlessConditionFails(
    store.db,
    new UpdateCommand({
      TableName: store.tableName,
      Key: key.paymentEvent(eventId),
      UpdateExpression: 'SET #status = :status, outcome = :outcome, finished_at = :now, expires_at = :expires REMOVE GSI1PK, GSI1SK',
      ConditionExpression: status === 'finished' ? '#status IN (:unfinished, :dead)' : '#status = :unfinished',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':status': status,
        ':outcome': outcome,
        ':now': now.toISOString(),
        ':expires': Math.floor(now.getTime() / 1000) + finishedRecordDays * 86_400,
        ':unfinished': 'unfinished',
        ...(status === 'finished' ? { ':dead': 'dead_lettered' } : {}),
      },
    }),
  );

/**
 * Every unfinished payment event, oldest first (GSI1 `PAYMENT_EVENTS#unfinished`, all
 * pages). GSI1 is eventually consistent: a record written a moment ago may be missing.
 */
export const unfinishedPaymentEvents = async (store: PaymentEventStore): Promise<PaymentEventItem[]> => {
  const items: PaymentEventItem[] = [];
  for await (const page of queryPages(store.db, {
    TableName: store.tableName,
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': gsi1Partition.unfinishedPaymentEvents },
  })) {
    items.push(...(page as PaymentEventItem[]));
  }
  return items;
};
