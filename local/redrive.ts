import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../shared/db/conditions';
import { key } from '../shared/db/keys';
import { unfinishedPaymentEvents } from '../shared/fulfilment/payment-events';

/** What redriveUnfinishedPayments did. */
export interface RedriveResult {
  /** Payment events put on the fulfilment queue again. */
  events: number;
  /** Order leases of a stopped runtime's workers that were given back. */
  leases: number;
}

/** Options of redriveUnfinishedPayments. */
export interface RedriveOptions {
  dynamo: DynamoDBClient;
  sqs: SQSClient;
  tableName: string;
  /** URL of the fulfilment queue. */
  queueUrl: string;
}

/**
 * `--persist`: the local SQS emulator keeps its queues in memory, so a runtime that was killed
 * lost the payment events it had queued or was working on. Their records survive in the
 * persisted table (`PAYMENT_EVENT#`, `unfinished` until the consumer finished them;
 * shared/fulfilment/payment-events.ts), so at start, before the pollers run, each one is
 * sent to the fulfilment queue again, exactly as the webhook sent it: no webhook is re-sent,
 * and the consumer's exactly-once rules (docs/fulfilment.md) make a message that was in fact
 * finished a no-op.
 *
 * The order lease a killed worker held would keep the order busy for the lease's full length
 * (the consumer's timeout + 30 s). The persisted folder belongs to this runtime's DynamoDB
 * Local alone and no poller of it runs yet, so every lease still on such an order belongs
 * to a worker that is gone: it is given back.
 * Only for a table this runtime owns; never with a shared DynamoDB.
 */
export const redriveUnfinishedPayments = async (options: RedriveOptions): Promise<RedriveResult> => {
  const db = DynamoDBDocumentClient.from(options.dynamo);
  const store = { db, tableName: options.tableName };
  const unfinished = await unfinishedPaymentEvents(store);
  const result: RedriveResult = { events: 0, leases: 0 };
  for (const orderId of new Set(unfinished.map((item) => item.order_id))) {
    const released = await sendUnlessConditionFails(
      db,
      new UpdateCommand({
        TableName: options.tableName,
        Key: key.order(orderId),
        UpdateExpression: 'REMOVE fulfilment_lease_owner, fulfilment_lease_until',
        ConditionExpression: 'attribute_exists(fulfilment_lease_owner)',
      }),
    );
    if (released) result.leases += 1;
  }
  for (const item of unfinished) {
    await options.sqs.send(new SendMessageCommand({ QueueUrl: options.queueUrl, MessageBody: item.message }));
    result.events += 1;
  }
  return result;
};
