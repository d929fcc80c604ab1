import { defineFunction } from '../shared/config/define-function';
import { deliverWebhookConsumer, deliveryConsumerDeps } from '../shared/webhooks/delivery-consumer';

/**
 * Consumer of the webhook-deliveries queue (issue #15, point 4): posts each event to its
 * subscription's URL, signed, retried with backoff, then dead-lettered (shared/webhooks/delivery-consumer.ts).
 */
export const handler = defineFunction('deliver-webhook', { deps: deliveryConsumerDeps, handler: deliverWebhookConsumer });
