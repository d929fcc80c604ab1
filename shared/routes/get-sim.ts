import { developerRoute, type DeveloperDeps } from '../http/developer-route';
import { ok } from '../http/responses';
import { appendLogKeys } from '../observability/invocation';
import { key } from '../db/keys';
import { directoryOf } from '../groups/directory';
import { simForScope, simIdFromPath, simItemOf } from '../sims/get-sim';

/**
 * GET /developer/api/sims/{sim}/ (A2): one SIM in the key's scope. The SIM and its group's
 * directory (the owner's name, the bundle's figures and pool usage as they are now) are read
 * beside the rate-limit write when that is expected to admit, and warm within the
 * authentication read (developerRoute's `items`).
 */
export const getSimRoute = (deps: DeveloperDeps) =>
  developerRoute<(Record<string, unknown> | undefined)[]>(
    { deps, scope: 'sims:read', items: (event, caller) => [key.sim(simIdFromPath(event.pathParameters)), key.groupDirectory(caller.customerPath[0] ?? caller.customerId)] },
    async ({ event, caller, prepared }) => {
      appendLogKeys({ sim_id: event.pathParameters?.sim });
      const [sim, directory] = await prepared();
      return ok(200, simForScope(simItemOf(sim), caller, directoryOf(directory)));
    },
  );
