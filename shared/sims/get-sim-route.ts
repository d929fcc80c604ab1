import { developerRoute, type DeveloperDeps } from '../http/developer-route';
import { ok } from '../http/responses';
import { appendLogKeys } from '../observability/invocation';
import { key } from '../db/keys';
import { simForScope, simIdFromPath, simItemOf } from './get-sim';

/**
 * GET /developer/api/sims/{sim}/ (A2): one SIM in the key's scope. The SIM is read beside
 * the rate-limit write when that is expected to admit, and warm within the authentication
 * read (developerRoute's `item`).
 */
export const getSimRoute = (deps: DeveloperDeps) =>
  developerRoute<Record<string, unknown> | undefined>(
    { deps, item: (event) => key.sim(simIdFromPath(event.pathParameters)) },
    async ({ event, caller, prepared }) => {
      appendLogKeys({ sim_id: event.pathParameters?.sim });
      return ok(200, simForScope(simItemOf(await prepared()), caller));
    },
  );
