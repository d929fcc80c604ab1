import { defineFunction } from '../shared/config/define-function';
import { fulfilmentDeps } from '../shared/fulfilment/deps';
import { fulfilOrderConsumer } from '../shared/routes/fulfil-order';

/**
 * Consumer of the fulfilment queue (spec Events 2; docs/fulfilment.md): each message is one
 * verified Stripe payment event; the order is fulfilled, failed or cancelled, each side
 * effect exactly once. A failing message is retried alone and, after the queue's receive
 * count, lands in the dead-letter queue, logged with its order id (shared/routes/fulfil-order.ts).
 */
export const handler = defineFunction('fulfil-order', { deps: fulfilmentDeps, handler: fulfilOrderConsumer });
