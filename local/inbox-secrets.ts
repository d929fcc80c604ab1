import { ScanCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { customerWebhookSecret } from '../shared/callbacks/signing';
import type { WebhookSubscriptionItem } from '../shared/db/items';
import { openSecret } from '../shared/webhooks/secret-box';
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

/**
 * The signing secrets of every webhook subscription in the local table (current, and previous
 * during its 24 hours), opened with WEBHOOK_SECRETS_KEY, so the inbox also verifies lifecycle
 * events sent to it (issue #15). Owner: `<customer> webhook <subscription id>`.
 */
export const subscriptionSecrets = async (dynamo: DynamoDBClient, tableName: string, keyMaterial: string): Promise<InboxSecret[]> => {
  const secrets: InboxSecret[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#type = :subscription',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':subscription': { S: 'webhook_subscription' } },
        ...(start ? { ExclusiveStartKey: start as never } : {}),
      }),
    );
    for (const raw of page.Items ?? []) {
      const item = unmarshall(raw) as WebhookSubscriptionItem;
      const owner = `${item.customer_id} webhook ${item.id}`;
      for (const sealed of [item.secret_sealed, item.previous_secret_sealed]) {
        if (!sealed) continue;
        try {
          secrets.push({ owner, secret: openSecret(keyMaterial, item.id, sealed) });
        } catch {
          // sealed under another WEBHOOK_SECRETS_KEY: it cannot verify anything here
        }
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return secrets;
};
