import { defineFunction } from '../shared/config/define-function';
import { createWebhookRoute, webhookRouteDeps } from '../shared/webhooks/subscription-routes';

/** The create-webhook route of the webhook subscriptions (issue #15; shared/webhooks/subscription-routes.ts, docs/webhooks.md). */
export const handler = defineFunction('create-webhook', { deps: webhookRouteDeps, handler: createWebhookRoute });
