import { defineFunction } from '../shared/config/define-function';
import { developerDeps } from '../shared/http/developer-route';
import { getSmsRoute } from '../shared/routes/get-sms';

/**
 * GET /developer/api/sims/{sim}/sms/{message_id}/ (reconciliation, beyond the spec): a
 * message's current state (shared/routes/get-sms.ts).
 */
export const handler = defineFunction('get-sms', { deps: developerDeps, handler: getSmsRoute });
