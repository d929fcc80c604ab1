import { defineFunction } from '../shared/config/define-function';
import { sendSmsDeps, sendSmsRoute } from '../shared/sms/send-sms-route';

/** POST /developer/api/sims/{sim}/sms/ (A3), `{sim}` being the ICCID: sends an SMS (shared/sms/send-sms-route.ts). */
export const handler = defineFunction('send-sms', { deps: sendSmsDeps, handler: sendSmsRoute });
