import { sameCaller } from '../../auth/caller-cache';
import { expectsAdmission, type RateLimitDeps } from '../../rate-limit/rate-limit';
import type { HttpMiddleware } from '../envelope';
import { countOf, developerState, type RouteRead } from './state';

/**
 * Starts the route's read (its `prepare` or `items`) beside the rate-limit write when this
 * container expects that write to admit the request, so that the route's function finds it
 * answered (one round trip saved); a request the container knows to be over a limit makes no
 * business call. Runs after authentication and before the rate limit:
 *
 * - cold: waits for the route's lookup first (started as the request arrived), so that the
 *   read that needs it and the rate-limit write go out together, then starts the read for the
 *   verified caller when admission is expected;
 * - warm (./head-start.ts started it for the remembered caller): keeps it, taking the items
 *   that rode in the authentication read; drops it when the caller turned out to be another.
 *
 * A read not started here starts once the request is admitted (../developer-route.ts).
 */
export const speculativeRead = (deps: RateLimitDeps, read: RouteRead, list: boolean): HttpMiddleware => ({
  before: async (request) => {
    const { event } = request;
    const state = developerState(request);
    const caller = state.caller!;
    if (state.hint) {
      if (state.itemKeys) state.prepared = Promise.resolve(state.also);
      if (!sameCaller(caller, state.hint)) state.prepared = undefined;
      return;
    }
    if (read.looksUp && read.reads) await state.looked?.then(ignore, ignore);
    state.prepared = read.reads && expectsAdmission(deps, countOf(caller, list)) ? read.start(event, caller, state.looked ?? Promise.resolve(undefined)) : undefined;
  },
});

const ignore = (): undefined => undefined;
