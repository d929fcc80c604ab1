import { defineFunction } from '../shared/config/define-function';
import { inboundDeps, receiveInboundMessages } from '../shared/routes/receive-inbound-sms';

/**
 * Consumer of the `sms-inbound` SNS topic (issue #21): an SMS a SIM sent to the service's number
 * is stored once as that SIM's message; the table's stream makes sms.received of it
 * (shared/sms/inbound.ts).
 */
export const handler = defineFunction('receive-inbound-sms', { deps: inboundDeps, handler: receiveInboundMessages });
