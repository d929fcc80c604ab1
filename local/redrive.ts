import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../shared/db/conditions';

/** What recoverStoppedWorkers gave back. */
export interface RedriveResult {
  /** Queue messages that were in flight with a stopped runtime's workers, made visible again. */
  messages: number;
  /** Order leases of a stopped runtime's workers. */
  leases: number;
}

/** Options of recoverStoppedWorkers. */
export interface RedriveOptions {
  dynamo: DynamoDBClient;
  tableName: string;
  /** In-flight messages the SQS emulator made visible again as it started (SqsLocal.inFlightReleased). */
  inFlightReleased: number;
}

/**
 * `--persist`: what a killed runtime's workers left behind, given back at the next start on
 * the same folder, before any poller runs. The queues themselves survive (fauxqs keeps them
 * in DIR, local/sqs-local.ts), so nothing is queued again here; the messages that were in
 * flight were made visible as the emulator started (their redelivery is what SQS itself does
 * after the visibility timeout; the consumer's exactly-once rules, docs/fulfilment.md, make
 * it safe), and are counted here.
 */
export const recoverStoppedWorkers = async (options: RedriveOptions): Promise<RedriveResult> => {
  const leases = await releaseDeadWorkersLeases(options.dynamo, options.tableName);
  return { messages: options.inFlightReleased, leases };
};

/**
 * The order lease a killed worker held would keep the order busy for the lease's full length
 * (the consumer's timeout + 30 s). The persisted folder belongs to this runtime's DynamoDB
 * Local alone and no poller of it runs yet, so every lease in the table belongs to a worker
 * that is gone: each is given back. They are found with one Scan (filtered on
 * `fulfilment_lease_owner`, all pages): a local table, read once at start. Only for a table
 * this runtime owns; never with a shared DynamoDB.
 */
export const releaseDeadWorkersLeases = async (dynamo: DynamoDBClient, tableName: string): Promise<number> => {
  const db = DynamoDBDocumentClient.from(dynamo);
  let leases = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: 'attribute_exists(fulfilment_lease_owner)',
        ProjectionExpression: 'PK, SK',
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const released = await sendUnlessConditionFails(
        db,
        new UpdateCommand({
          TableName: tableName,
          Key: { PK: item.PK, SK: item.SK },
          UpdateExpression: 'REMOVE fulfilment_lease_owner, fulfilment_lease_until',
          ConditionExpression: 'attribute_exists(fulfilment_lease_owner)',
        }),
      );
      if (released) leases += 1;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return leases;
};
