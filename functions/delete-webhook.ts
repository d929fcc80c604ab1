import { defineFunction } from '../shared/config/define-function';
import { deleteWebhookRoute, webhookRouteDeps } from '../shared/routes/webhook-subscriptions';

/** The delete-webhook route of the webhook subscriptions (issue #15; shared/routes/webhook-subscriptions.ts, docs/webhooks.md). */
export const handler = defineFunction('delete-webhook', { deps: webhookRouteDeps, handler: deleteWebhookRoute });
