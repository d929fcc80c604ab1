import { defineFunction } from '../shared/config/define-function';
import { webhookDeps, webhookRoute } from '../shared/routes/stripe-webhook';

/** POST /api/v1/webhooks/stripe — signed payment events from Stripe, onto the fulfilment queue (shared/routes/stripe-webhook.ts). */
export const handler = defineFunction('stripe-webhook', { deps: webhookDeps, handler: webhookRoute });
