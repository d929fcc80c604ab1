import { defineFunction } from '../shared/config/define-function';
import { receiptRoute, receiptRouteDeps } from '../shared/sms/receipt-route';

/** POST /sms-provider/receipts — a signed delivery receipt from the SMS provider (shared/sms/receipt-route.ts). */
export const handler = defineFunction('receive-sms-receipt', { deps: receiptRouteDeps, handler: receiptRoute });
