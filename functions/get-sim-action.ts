import { defineFunction } from '../shared/config/define-function';
import { developerDeps } from '../shared/http/developer-route';
import { getSimActionRoute } from '../shared/routes/sim-actions';

/** GET /developer/api/sims/{sim}/actions/{action_id}/ (issue #33): one action of a SIM (shared/routes/sim-actions.ts). */
export const handler = defineFunction('get-sim-action', { deps: developerDeps, handler: getSimActionRoute });
