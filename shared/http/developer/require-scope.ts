import type { ApiKeyScope } from '../../auth/scopes';
import { ApiError } from '../../errors/api-error';
import type { HttpMiddleware } from '../envelope';
import { developerState } from './state';

/** The 403 of a key without the scope a route needs (issue #33). */
export const insufficientScope = (scope: ApiKeyScope): ApiError =>
  new ApiError(403, 'insufficient_scope', `The API key does not have the ${scope} scope this operation needs.`);

/**
 * The scope an Area A route needs (shared/auth/scopes.ts), checked on the verified caller right
 * after two-factor authentication and in its place in the order of answers: a key without it is
 * 403 `insufficient_scope`, like the other 403s of authentication without rate-limit headers
 * (nothing is counted). A route that names no scope lets every key through.
 */
export const requireScope = (scope: ApiKeyScope | undefined): HttpMiddleware => ({
  before: async (request) => {
    if (scope === undefined) return;
    const caller = developerState(request).caller!;
    if (!caller.scopes.includes(scope)) throw insufficientScope(scope);
  },
});
