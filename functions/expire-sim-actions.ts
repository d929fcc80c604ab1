import { defineFunction } from '../shared/config/define-function';
import { expireSimActionsDeps, expireSimActionsHandler } from '../shared/routes/expire-sim-actions';

/** Every 10 minutes (issue #33): SIM actions pending for 24 hours fail as operator_timeout (shared/routes/expire-sim-actions.ts). */
export const handler = defineFunction('expire-sim-actions', { deps: expireSimActionsDeps, handler: expireSimActionsHandler });
