import { defineFunction } from '../shared/config/define-function';
import { webhookDeps, webhookRoute } from '../shared/fulfilment/webhook-route';

/** POST /api/v1/webhooks/stripe — signed payment events from Stripe, onto the fulfilment queue (shared/fulfilment/webhook-route.ts). */
export const handler = defineFunction('stripe-webhook', { deps: webhookDeps, handler: webhookRoute });
