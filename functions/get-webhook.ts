import { defineFunction } from '../shared/config/define-function';
import { getWebhookRoute, webhookRouteDeps } from '../shared/routes/webhook-subscriptions';

/** The get-webhook route of the webhook subscriptions (issue #15; shared/routes/webhook-subscriptions.ts, docs/webhooks.md). */
export const handler = defineFunction('get-webhook', { deps: webhookRouteDeps, handler: getWebhookRoute });
