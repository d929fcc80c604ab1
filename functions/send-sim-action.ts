import { defineFunction } from '../shared/config/define-function';
import { sendSimActionConsumer, sendSimActionDeps } from '../shared/routes/send-sim-action';

/** Consumer of the operator-actions queue (issue #33): sends SIM actions to the operator's provisioning API (shared/routes/send-sim-action.ts). */
export const handler = defineFunction('send-sim-action', { deps: sendSimActionDeps, handler: sendSimActionConsumer });
