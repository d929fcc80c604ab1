import { sqsConsumer } from '../shared/queues/consumer';

/**
 * Consumer of the fulfilment queue (spec Events 2). Fulfilment is built by the fulfilment
 * issue (#6); until then nothing enqueues here, and a message that arrives anyway is failed
 * so that it lands in the dead-letter queue instead of being lost.
 */
export const handler = sqsConsumer('fulfil-order', async () => {
  throw new Error('order fulfilment is not implemented yet (issue #6)');
});
