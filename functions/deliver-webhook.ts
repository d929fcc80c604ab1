import { defineFunction } from '../shared/config/define-function';
import { deliverWebhookConsumer, deliveryConsumerDeps } from '../shared/routes/deliver-webhook';

/**
 * Consumer of the webhook-deliveries queue (issue #15, point 4): posts each event to its
 * subscription's URL, signed, retried with backoff, then dead-lettered (shared/routes/deliver-webhook.ts).
 */
export const handler = defineFunction('deliver-webhook', { deps: deliveryConsumerDeps, handler: deliverWebhookConsumer });
