import { defineFunction } from '../shared/config/define-function';
import { developerDeps } from '../shared/http/developer-route';
import { listSimsRoute } from '../shared/sims/list-sims-route';

/** GET /developer/api/sims/ (A1): a page of the SIMs in the key's scope (shared/sims/list-sims-route.ts). */
export const handler = defineFunction('list-sims', { deps: developerDeps, handler: listSimsRoute });
