import { unroutedRequestError } from '../shared/http/fallback';
import { httpRoute } from '../shared/http/route';

/** Any path outside /developer/api/ that no route serves: JSON 404 `not_found` or 405. */
export const handler = httpRoute({}, async (event) => {
  throw unroutedRequestError(event);
});
