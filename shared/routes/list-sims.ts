import { developerRoute, type DeveloperDeps } from '../http/developer-route';
import { ok } from '../http/responses';
import { customersNamed, listSims, planListSims } from '../sims/list-sims';

/**
 * GET /developer/api/sims/ (A1): a page of the SIMs in the key's scope. A `customer` name is
 * looked up beside authentication; the query is validated and the list's directory read
 * beside the rate-limit write; the page's entries and SIMs are read only once the request is
 * admitted: four round trips at most (docs/area-a.md, "Lists at fleet scale").
 */
export const listSimsRoute = (deps: DeveloperDeps) =>
  developerRoute(
    {
      deps,
      scope: 'sims:read',
      list: true,
      lookup: (event, resolved) => customersNamed(resolved, event.queryStringParameters),
      prepare: ({ event, caller, looked }, resolved) => planListSims(resolved, caller, event.queryStringParameters, looked),
    },
    async ({ caller, prepared }, resolved) => ok(200, await listSims(resolved, caller, await prepared())),
  );
