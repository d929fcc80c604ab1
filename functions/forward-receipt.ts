import { sqsConsumer } from '../shared/queues/consumer';

/**
 * Consumer of the callback-forwarding queue (spec A4). Forwarding receipts to callback_url
 * is built by the SMS issue (#4); until then nothing enqueues here, and a message that
 * arrives anyway is failed so that it lands in the dead-letter queue instead of being lost.
 */
export const handler = sqsConsumer('forward-receipt', async () => {
  throw new Error('receipt forwarding is not implemented yet (issue #4)');
});
