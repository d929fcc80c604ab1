import { defineFunction } from '../shared/config/define-function';
import { deleteWebhookRoute, webhookRouteDeps } from '../shared/webhooks/subscription-routes';

/** The delete-webhook route of the webhook subscriptions (issue #15; shared/webhooks/subscription-routes.ts, docs/webhooks.md). */
export const handler = defineFunction('delete-webhook', { deps: webhookRouteDeps, handler: deleteWebhookRoute });
