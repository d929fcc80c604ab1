import { defineFunction } from '../shared/config/define-function';
import { createWebhookRoute, webhookRouteDeps } from '../shared/routes/webhook-subscriptions';

/** The create-webhook route of the webhook subscriptions (issue #15; shared/routes/webhook-subscriptions.ts, docs/webhooks.md). */
export const handler = defineFunction('create-webhook', { deps: webhookRouteDeps, handler: createWebhookRoute });
