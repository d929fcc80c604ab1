import { logger } from '../observability/logger';
import { createHash, timingSafeEqual } from 'node:crypto';
import { getSecret } from '../config/secrets';
import { ApiError } from '../errors/api-error';
import type { HttpMiddleware } from './envelope';
import { header } from './headers';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/**
 * True when `presented` equals `expected`, in constant time: both are hashed first, so
 * neither their contents nor their lengths show in the comparison's timing.
 */
export const tokensMatch = (presented: string, expected: string): boolean => timingSafeEqual(digest(presented), digest(expected));

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), or undefined. */
export const bearerToken = (authorization: string | undefined): string | undefined => {
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  return match?.[1];
};

/**
 * The guard of Area B: `Authorization: Bearer <STOREFRONT_SERVICE_TOKEN>`. No bearer token
 * (no header, another scheme, or an empty token) is 401 `service_token_required`; a token
 * that is not the configured one is 401 `invalid_service_token` (also when no token is
 * configured at all: the service fails closed). Runs before the body is parsed.
 */
export const serviceTokenGuard = (): HttpMiddleware => ({
  before: async (request) => {
    const presented = bearerToken(header(request.event, 'Authorization'));
    if (presented === undefined) {
      throw new ApiError(401, 'service_token_required', 'An Authorization: Bearer <service token> header is required.');
    }
    const expected = await getSecret('STOREFRONT_SERVICE_TOKEN');
    if (expected === undefined) {
      logger.error('STOREFRONT_SERVICE_TOKEN is not configured');
    }
    if (expected === undefined || !tokensMatch(presented, expected)) {
      throw new ApiError(401, 'invalid_service_token', 'The service token is not valid.');
    }
  },
});
