import { developerRoute, type DeveloperDeps } from '../http/developer-route';
import { ok } from '../http/responses';
import { listSims, planListSims } from './list-sims';

/**
 * GET /developer/api/sims/ (A1): a page of the SIMs in the key's scope. The query is
 * validated (and a `customer` name resolved) beside the rate-limit write; the SIMs are read
 * only once the request is admitted.
 */
export const listSimsRoute = (deps: DeveloperDeps) =>
  developerRoute(
    { deps, list: true, prepare: ({ event, caller }, resolved) => planListSims(resolved, caller, event.queryStringParameters) },
    async ({ caller, prepared }, resolved) => ok(200, await listSims(resolved, caller, await prepared())),
  );
