import { sameCaller } from '../../auth/caller-cache';
import { consumeRateLimit, type RateLimitDeps } from '../../rate-limit/rate-limit';
import type { HttpMiddleware } from '../envelope';
import { countOf, developerState } from './state';

/**
 * The rate limit of an Area A request (shared/rate-limit/): counts it for the verified caller
 * (`list`: a list request, under the minimum poll interval too) and keeps the answer for
 * ./rate-limit-headers.ts and ./caller-log-keys.ts; a refused request is answered 429 here,
 * before the route's function runs. On a warm request whose caller is the remembered one, the
 * count is the write ./head-start.ts started (its failure fails the request); otherwise the
 * write happens now.
 */
export const rateLimit = (deps: RateLimitDeps, list: boolean): HttpMiddleware => ({
  before: async (request) => {
    const state = developerState(request);
    const caller = state.caller!;
    state.limit =
      state.counted && state.hint && sameCaller(caller, state.hint) ? await state.counted : await consumeRateLimit(deps, countOf(caller, list));
    if (state.limit.rejection) throw state.limit.rejection;
  },
});
