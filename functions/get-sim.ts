import { defineFunction } from '../shared/config/define-function';
import { developerDeps } from '../shared/http/developer-route';
import { getSimRoute } from '../shared/routes/get-sim';

/** GET /developer/api/sims/{sim}/ (A2): one SIM in the key's scope (shared/routes/get-sim.ts). */
export const handler = defineFunction('get-sim', { deps: developerDeps, handler: getSimRoute });
