import { developerRoute, type DeveloperDeps } from '../http/developer-route';
import { unroutedRequestError } from '../http/fallback';

/**
 * Any request under /developer/api/ that no route serves: JSON 404 `not_found` or 405
 * `method_not_allowed`, answered like every Area A request: after two-factor authentication
 * and the rate limit, with the X-RateLimit-* headers.
 */
export const developerFallbackRoute = (deps: DeveloperDeps) =>
  developerRoute({ deps }, async ({ event }) => {
    throw unroutedRequestError(event);
  });
