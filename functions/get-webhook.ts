import { defineFunction } from '../shared/config/define-function';
import { getWebhookRoute, webhookRouteDeps } from '../shared/webhooks/subscription-routes';

/** The get-webhook route of the webhook subscriptions (issue #15; shared/webhooks/subscription-routes.ts, docs/webhooks.md). */
export const handler = defineFunction('get-webhook', { deps: webhookRouteDeps, handler: getWebhookRoute });
