import { developerRoute, type DeveloperDeps } from '../shared/http/developer-route';
import { ok } from '../shared/http/responses';
import { listSims, planListSims } from '../shared/sims/list-sims';

/**
 * GET /developer/api/sims/ (A1): a page of the SIMs in the key's scope. The query is
 * validated (and a `customer` name resolved) beside the rate-limit write; the SIMs are read
 * only once the request is admitted.
 */
export const listSimsRoute = (deps?: DeveloperDeps | (() => DeveloperDeps)) =>
  developerRoute(
    { deps, list: true, prepare: ({ event, caller }, resolved) => planListSims(resolved, caller, event.queryStringParameters) },
    async ({ caller, prepared }, resolved) => ok(200, await listSims(resolved, caller, await prepared())),
  );

/** The Lambda handler. */
export const handler = listSimsRoute();
