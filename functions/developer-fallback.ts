import { developerRoute, type DeveloperDeps } from '../shared/http/developer-route';
import { unroutedRequestError } from '../shared/http/fallback';

/**
 * Any request under /developer/api/ that no route serves: JSON 404 `not_found` or 405
 * `method_not_allowed`, answered like every Area A request: after two-factor authentication
 * and the rate limit, with the X-RateLimit-* headers.
 */
export const developerFallbackRoute = (deps?: DeveloperDeps | (() => DeveloperDeps)) =>
  developerRoute({ deps }, async ({ event }) => {
    throw unroutedRequestError(event);
  });

/** The Lambda handler. */
export const handler = developerFallbackRoute();
