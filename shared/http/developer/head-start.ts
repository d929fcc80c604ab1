import { cachedCaller } from '../../auth/caller-cache';
import { authenticateDeveloperWith } from '../../auth/two-factor';
import { consumeRateLimit, expectsAdmission, type RateLimitDeps } from '../../rate-limit/rate-limit';
import type { AuthDeps } from '../../auth/two-factor';
import type { ApiKeyScope } from '../../auth/scopes';
import type { HttpMiddleware } from '../envelope';
import { countOf, developerState, started, type RouteRead } from './state';

/**
 * Starts, as the request arrives, what need not wait for authentication to answer: the
 * route's lookup; and on a warm request (shared/auth/caller-cache.ts: this container already
 * verified the same token and key) the consistent authentication read, the rate-limit write
 * for that caller and, when this container expects the write to admit the request, the
 * route's read (its items ride in the authentication read): one round trip instead of two.
 * It awaits nothing and decides nothing: ./authenticate.ts, ./speculative-read.ts and
 * ./rate-limit.ts settle what it started, in the order of a cold request. Without a warm
 * caller only the lookup starts; so too when the warm caller's key lacks the route's `scope`
 * (the request is to be refused 403 insufficient_scope: nothing is counted or read for it).
 */
export const headStart = (deps: AuthDeps & RateLimitDeps, read: RouteRead, list: boolean, scope?: ApiKeyScope): HttpMiddleware => ({
  before: async (request) => {
    const { event } = request;
    const state = developerState(request);
    state.looked = read.lookup(event);
    const hint = cachedCaller(event.headers);
    if (!hint || (scope !== undefined && !hint.scopes.includes(scope))) return;
    state.hint = hint;
    const expected = read.reads && expectsAdmission(deps, countOf(hint, list));
    const itemKeys = expected && read.itemKeys ? read.itemKeys(event, hint) : undefined;
    if (expected && !itemKeys?.keys) state.prepared = read.start(event, hint, state.looked);
    state.itemKeys = itemKeys?.keys;
    state.verifying = started(authenticateDeveloperWith(deps, event, itemKeys?.keys));
    state.counted = started(consumeRateLimit(deps, countOf(hint, list)));
  },
});
