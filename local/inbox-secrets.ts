import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { customerWebhookSecret } from '../shared/callbacks/signing';
import type { WebhookSubscriptionItem } from '../shared/db/items';
import { openSecret } from '../shared/webhooks/secret-box';
import { retiredSecretsOf } from '../shared/webhooks/subscriptions';
import { scanItemsOfType } from './scan-items';
import type { InboxSecret } from './webhook-inbox';

/** The local table the inbox reads its secrets from. */
type LocalTable = { db: DynamoDBDocumentClient; tableName: string };

/**
 * The receipt signing secret of every customer in the local table (derived from
 * CALLBACK_SIGNING_SECRET as the forwarder derives it: shared/callbacks/signing.ts), for the
 * webhook inbox to tell which customer's secret a delivery verifies with. Read when a delivery
 * arrives, so customers loaded after start count too. A Scan: local runtime only, small tables.
 */
export const customerReceiptSecrets = async (table: LocalTable, masterSecret: string): Promise<InboxSecret[]> =>
  (await scanItemsOfType<{ id: string }>(table, 'customer', ['id'])).map(({ id }) => ({
    owner: id,
    secret: customerWebhookSecret(masterSecret, id),
  }));

/**
 * The signing secrets of every webhook subscription in the local table (current, and the
 * retired ones during their 24 hours), opened with WEBHOOK_SECRETS_KEY, so the inbox also verifies lifecycle
 * events sent to it (issue #15). Owner: `<customer> webhook <subscription id>`.
 */
export const subscriptionSecrets = async (table: LocalTable, keyMaterial: string): Promise<InboxSecret[]> => {
  const secrets: InboxSecret[] = [];
  for (const item of await scanItemsOfType<WebhookSubscriptionItem>(table, 'webhook_subscription')) {
    const owner = `${item.customer_id} webhook ${item.id}`;
    for (const sealed of [item.secret_sealed, ...retiredSecretsOf(item, Date.now()).map((retired) => retired.sealed)]) {
      try {
        secrets.push({ owner, secret: openSecret(keyMaterial, item.id, sealed) });
      } catch {
        // sealed under another WEBHOOK_SECRETS_KEY: it cannot verify anything here
      }
    }
  }
  return secrets;
};
