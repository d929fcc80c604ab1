import { defineFunction } from '../shared/config/define-function';
import { listWebhookDeliveriesRoute, webhookRouteDeps } from '../shared/webhooks/subscription-routes';

/** The list-webhook-deliveries route of the webhook subscriptions (issue #15; shared/webhooks/subscription-routes.ts, docs/webhooks.md). */
export const handler = defineFunction('list-webhook-deliveries', { deps: webhookRouteDeps, handler: listWebhookDeliveriesRoute });
