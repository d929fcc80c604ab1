import { defineFunction } from '../shared/config/define-function';
import { rotateWebhookSecretRoute, webhookRouteDeps } from '../shared/routes/webhook-subscriptions';

/** The rotate-webhook-secret route of the webhook subscriptions (issue #15; shared/routes/webhook-subscriptions.ts, docs/webhooks.md). */
export const handler = defineFunction('rotate-webhook-secret', { deps: webhookRouteDeps, handler: rotateWebhookSecretRoute });
