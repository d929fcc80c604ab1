import { developerRoute, type DeveloperDeps } from '../shared/http/developer-route';
import { ok } from '../shared/http/responses';
import { readSim, simForScope, simIdFromPath } from '../shared/sims/get-sim';

/**
 * GET /developer/api/sims/{sim}/ (A2): one SIM in the key's scope. The SIM is read beside
 * the rate-limit write when that is expected to admit (developerRoute's `prepare`).
 */
export const getSimRoute = (deps?: DeveloperDeps | (() => DeveloperDeps)) =>
  developerRoute(
    { deps, prepare: ({ event }, resolved) => readSim(resolved, simIdFromPath(event.pathParameters)) },
    async ({ caller, prepared }) => ok(200, simForScope(await prepared(), caller)),
  );

/** The Lambda handler. */
export const handler = getSimRoute();
