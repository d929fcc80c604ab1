import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { WebhookDeliveryItem } from '../shared/db/items';

/** Escapes text for HTML element content and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (character) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[character]!);

/**
 * The most recent webhook delivery attempts of the whole local table, newest first (a Scan:
 * local tables are small; the API's per-subscription list is a Query, shared/webhooks/deliveries.ts).
 */
export const recentDeliveries = async (table: { db: DynamoDBDocumentClient; tableName: string }, limit = 20): Promise<WebhookDeliveryItem[]> => {
  const items: WebhookDeliveryItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new ScanCommand({
        TableName: table.tableName,
        FilterExpression: '#type = :delivery',
        ExpressionAttributeNames: { '#type': 'type' },
        ExpressionAttributeValues: { ':delivery': 'webhook_delivery' },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...((page.Items ?? []) as WebhookDeliveryItem[]));
    start = page.LastEvaluatedKey;
  } while (start);
  return items.sort((left, right) => right.SK.localeCompare(left.SK) || right.attempt - left.attempt).slice(0, limit);
};

/**
 * The recent deliveries as an HTML fragment for the developer console (`{base}/_local/`, issue
 * #12): one table, a row per attempt (time, subscription, event type and id, attempt, outcome
 * with the HTTP status or the error). Every value is escaped: URLs, errors and ids come from
 * callers and receivers.
 */
export const deliveriesFragment = (deliveries: readonly WebhookDeliveryItem[]): string => {
  if (deliveries.length === 0) return '<section class="webhook-deliveries"><h2>Webhook deliveries</h2><p>No deliveries yet.</p></section>';
  const rows = deliveries.map((delivery) => {
    const outcome = delivery.outcome === 'delivered' ? `delivered (${delivery.http_status})` : `failed: ${delivery.http_status ?? delivery.error ?? ''}`;
    const cells = [delivery.attempted_at, delivery.subscription_id, delivery.event_type, delivery.event_id, String(delivery.attempt), outcome];
    return `<tr class="${delivery.outcome === 'delivered' ? 'ok' : 'failed'}">${cells.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`;
  });
  return [
    '<section class="webhook-deliveries"><h2>Webhook deliveries</h2><table>',
    '<thead><tr><th>time</th><th>subscription</th><th>event</th><th>event id</th><th>attempt</th><th>outcome</th></tr></thead>',
    `<tbody>${rows.join('')}</tbody></table></section>`,
  ].join('');
};
