import { developerRoute, type DeveloperDeps } from '../http/developer-route';
import { ok } from '../http/responses';
import { readSim, simForScope, simIdFromPath } from './get-sim';

/**
 * GET /developer/api/sims/{sim}/ (A2): one SIM in the key's scope. The SIM is read beside
 * the rate-limit write (two round trips in all); a refused request discards it.
 */
export const getSimRoute = (deps: DeveloperDeps) =>
  developerRoute(
    { deps, prepare: ({ event }, resolved) => readSim(resolved, simIdFromPath(event.pathParameters)) },
    async ({ caller, prepared }) => ok(200, simForScope(prepared, caller)),
  );
