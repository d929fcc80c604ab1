import { forgetCaller, rememberCaller, sameCaller } from '../../auth/caller-cache';
import { authenticateDeveloper, type AuthDeps } from '../../auth/two-factor';
import type { HttpMiddleware } from '../envelope';
import { developerState } from './state';

/**
 * Two-factor authentication of an Area A request (shared/auth/two-factor.ts): the verified
 * caller, or its 401/403. A verified caller is remembered for the credentials
 * (shared/auth/caller-cache.ts), so that the next request with them is warm.
 *
 * On a warm request the read was started by ./head-start.ts; it is settled together with the
 * rate-limit write started beside it (no answer leaves that write in flight), and the answer
 * is still the read's: a failure answers 401/403 and forgets the credentials, whatever the
 * rate limit said; a caller other than the remembered one is remembered instead.
 */
export const authenticate = (deps: AuthDeps): HttpMiddleware => ({
  before: async (request) => {
    const { event } = request;
    const state = developerState(request);
    if (!state.verifying || !state.hint) {
      state.caller = await authenticateDeveloper(deps, event);
      rememberCaller(event.headers, state.caller);
      return;
    }
    const [verified] = await Promise.allSettled([state.verifying, state.counted]);
    if (verified.status === 'rejected') {
      forgetCaller(event.headers);
      throw verified.reason;
    }
    state.caller = verified.value.caller;
    state.also = verified.value.also;
    if (!sameCaller(state.caller, state.hint)) rememberCaller(event.headers, state.caller);
  },
});
