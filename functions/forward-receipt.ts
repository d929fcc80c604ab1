import { defineFunction } from '../shared/config/define-function';
import { forwardConsumerDeps, forwardReceiptConsumer } from '../shared/routes/forward-receipt';

/** Consumer of the callbacks queue: posts each delivery receipt to its callback_url, signed (shared/routes/forward-receipt.ts). */
export const handler = defineFunction('forward-receipt', { deps: forwardConsumerDeps, handler: forwardReceiptConsumer });
