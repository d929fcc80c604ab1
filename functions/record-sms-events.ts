import { defineFunction } from '../shared/config/define-function';
import { deliveryEventDeps, recordSmsEvents } from '../shared/routes/record-sms-events';

/**
 * Consumer of the `sms-events` SNS topic (issue #21): delivery events of AWS End User Messaging
 * SMS move their message once to delivered, expired or failed and forward the receipt
 * (shared/sms/delivery-events.ts).
 */
export const handler = defineFunction('record-sms-events', { deps: deliveryEventDeps, handler: recordSmsEvents });
