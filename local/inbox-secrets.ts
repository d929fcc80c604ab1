import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { customerWebhookSecret } from '../shared/callbacks/signing';
import type { InboxSecret } from './webhook-inbox';

/**
 * The receipt signing secret of every customer in the local table (derived from
 * CALLBACK_SIGNING_SECRET as the forwarder derives it: shared/callbacks/signing.ts), for the
 * webhook inbox to tell which customer's secret a delivery verifies with. Read when a delivery
 * arrives, so customers loaded after start count too. A Scan: local runtime only, small tables.
 */
export const customerReceiptSecrets = async (dynamo: DynamoDBClient, tableName: string, masterSecret: string): Promise<InboxSecret[]> => {
  const secrets: InboxSecret[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#type = :customer',
        ProjectionExpression: 'id',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':customer': { S: 'customer' } },
        ...(start ? { ExclusiveStartKey: start as never } : {}),
      }),
    );
    for (const item of page.Items ?? []) {
      const id = item.id?.S;
      if (id !== undefined) secrets.push({ owner: id, secret: customerWebhookSecret(masterSecret, id) });
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return secrets;
};
