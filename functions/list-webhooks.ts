import { defineFunction } from '../shared/config/define-function';
import { listWebhooksRoute, webhookRouteDeps } from '../shared/webhooks/subscription-routes';

/** The list-webhooks route of the webhook subscriptions (issue #15; shared/webhooks/subscription-routes.ts, docs/webhooks.md). */
export const handler = defineFunction('list-webhooks', { deps: webhookRouteDeps, handler: listWebhooksRoute });
