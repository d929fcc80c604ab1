import { defineFunction } from '../shared/config/define-function';
import { developerDeps } from '../shared/http/developer-route';
import { getSimRoute } from '../shared/sims/get-sim-route';

/** GET /developer/api/sims/{sim}/ (A2): one SIM in the key's scope (shared/sims/get-sim-route.ts). */
export const handler = defineFunction('get-sim', { deps: developerDeps, handler: getSimRoute });
