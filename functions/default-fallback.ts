import { defineFunction } from '../shared/config/define-function';
import { unroutedRequestError } from '../shared/http/fallback';
import { httpRoute } from '../shared/http/route';

/** Any path outside /developer/api/ that no route serves: JSON 404 `not_found` or 405. No configuration, no deps. */
export const handler = defineFunction('default-fallback', {
  deps: () => ({}),
  handler: () =>
    httpRoute({}, async (event) => {
      throw unroutedRequestError(event);
    }),
});
