import { defineFunction } from '../shared/config/define-function';
import { receiptRoute, receiptRouteDeps } from '../shared/routes/receive-sms-receipt';

/** POST /sms-provider/receipts — a signed delivery receipt from the SMS provider (shared/routes/receive-sms-receipt.ts). */
export const handler = defineFunction('receive-sms-receipt', { deps: receiptRouteDeps, handler: receiptRoute });
