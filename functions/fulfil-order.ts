import { defineFunction } from '../shared/config/define-function';
import { fulfilmentRecordProcessor } from '../shared/fulfilment/consumer';
import { fulfilmentDeps } from '../shared/fulfilment/deps';
import { sqsConsumer } from '../shared/queues/consumer';

/**
 * Consumer of the fulfilment queue (spec Events 2; docs/fulfilment.md): each message is one
 * verified Stripe payment event; the order is fulfilled, failed or cancelled, each side
 * effect exactly once. A failing message is retried alone and, after the queue's receive
 * count, lands in the dead-letter queue, logged with its order id.
 */
export const handler = defineFunction('fulfil-order', {
  deps: fulfilmentDeps,
  handler: (deps) => sqsConsumer('fulfil-order', fulfilmentRecordProcessor(deps)),
});
