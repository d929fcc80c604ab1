import { defineFunction } from '../shared/config/define-function';
import { developerDeps } from '../shared/http/developer-route';
import { listSimsRoute } from '../shared/routes/list-sims';

/** GET /developer/api/sims/ (A1): a page of the SIMs in the key's scope (shared/routes/list-sims.ts). */
export const handler = defineFunction('list-sims', { deps: developerDeps, handler: listSimsRoute });
