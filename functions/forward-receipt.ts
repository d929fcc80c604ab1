import { forwardConsumerDeps, forwardReceiptConsumer } from '../shared/callbacks/forward-consumer';
import { defineFunction } from '../shared/config/define-function';

/** Consumer of the callbacks queue: posts each delivery receipt to its callback_url, signed (shared/callbacks/forward-consumer.ts). */
export const handler = defineFunction('forward-receipt', { deps: forwardConsumerDeps, handler: forwardReceiptConsumer });
