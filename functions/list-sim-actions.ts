import { defineFunction } from '../shared/config/define-function';
import { developerDeps } from '../shared/http/developer-route';
import { listSimActionsRoute } from '../shared/routes/sim-actions';

/** GET /developer/api/sims/{sim}/actions/ (issue #33): a SIM's actions, newest first (shared/routes/sim-actions.ts). */
export const handler = defineFunction('list-sim-actions', { deps: developerDeps, handler: listSimActionsRoute });
