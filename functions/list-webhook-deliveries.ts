import { defineFunction } from '../shared/config/define-function';
import { listWebhookDeliveriesRoute, webhookRouteDeps } from '../shared/routes/webhook-subscriptions';

/** The list-webhook-deliveries route of the webhook subscriptions (issue #15; shared/routes/webhook-subscriptions.ts, docs/webhooks.md). */
export const handler = defineFunction('list-webhook-deliveries', { deps: webhookRouteDeps, handler: listWebhookDeliveriesRoute });
