import { defineFunction } from '../shared/config/define-function';
import { listWebhooksRoute, webhookRouteDeps } from '../shared/routes/webhook-subscriptions';

/** The list-webhooks route of the webhook subscriptions (issue #15; shared/routes/webhook-subscriptions.ts, docs/webhooks.md). */
export const handler = defineFunction('list-webhooks', { deps: webhookRouteDeps, handler: listWebhooksRoute });
