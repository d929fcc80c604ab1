import { defineFunction } from '../shared/config/define-function';
import { developerFallbackRoute } from '../shared/routes/developer-fallback';
import { developerDeps } from '../shared/http/developer-route';

/**
 * Any request under /developer/api/ that no route serves: JSON 404 `not_found` or 405, after
 * authentication and the rate limit like every Area A request (shared/routes/developer-fallback.ts).
 */
export const handler = defineFunction('developer-fallback', { deps: developerDeps, handler: developerFallbackRoute });
