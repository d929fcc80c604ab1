import { addResponseHeaders, type HttpMiddleware, type HttpRequest } from '../envelope';
import { developerState } from './state';

const addLimitHeaders = async (request: HttpRequest): Promise<void> => {
  const { limit } = developerState(request);
  if (limit) addResponseHeaders(request, limit.headers);
};

/**
 * The six X-RateLimit-* headers of the rate limit's answer (./rate-limit.ts) on whatever the
 * request ends with: 2xx, 4xx of validation, 404/405, the 429 itself. A request that failed
 * authentication was never counted, so its 401/403 carries none.
 */
export const rateLimitHeaders = (): HttpMiddleware => ({ after: addLimitHeaders, onError: addLimitHeaders });
