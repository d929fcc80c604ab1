import { defineFunction } from '../shared/config/define-function';
import { requestSimActionDeps, requestSimActionRoute } from '../shared/routes/sim-actions';

/** POST /developer/api/sims/{sim}/actions/ (issue #33): asks the operator for a SIM action (shared/routes/sim-actions.ts). */
export const handler = defineFunction('request-sim-action', { deps: requestSimActionDeps, handler: requestSimActionRoute });
