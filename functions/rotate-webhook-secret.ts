import { defineFunction } from '../shared/config/define-function';
import { rotateWebhookSecretRoute, webhookRouteDeps } from '../shared/webhooks/subscription-routes';

/** The rotate-webhook-secret route of the webhook subscriptions (issue #15; shared/webhooks/subscription-routes.ts, docs/webhooks.md). */
export const handler = defineFunction('rotate-webhook-secret', { deps: webhookRouteDeps, handler: rotateWebhookSecretRoute });
