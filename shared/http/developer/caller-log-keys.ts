import { appendLogKeys } from '../../observability/invocation';
import type { HttpMiddleware, HttpRequest } from '../envelope';
import { developerState } from './state';

const appendCaller = async (request: HttpRequest): Promise<void> => {
  const { caller, limit } = developerState(request);
  if (caller && limit) appendLogKeys({ user_id: caller.userId, customer_id: caller.customerId });
};

/**
 * Who is calling, on every later log line of the request: `user_id` and `customer_id` (ids,
 * never the credentials), from the moment the rate limit has answered (./rate-limit.ts):
 * before the route's function runs, and on its refusal too (onError, as the 429 is thrown
 * before this runs). A request that failed authentication or whose rate-limit write failed
 * gets none.
 */
export const callerLogKeys = (): HttpMiddleware => ({ before: appendCaller, onError: appendCaller });
