import { defineFunction } from '../shared/config/define-function';
import { sendSmsDeps, sendSmsRoute } from '../shared/routes/send-sms';

/** POST /developer/api/sims/{sim}/sms/ (A3), `{sim}` being the ICCID: sends an SMS (shared/routes/send-sms.ts). */
export const handler = defineFunction('send-sms', { deps: sendSmsDeps, handler: sendSmsRoute });
