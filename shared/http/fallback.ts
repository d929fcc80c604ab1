import type { APIGatewayProxyEvent } from 'aws-lambda';
import { routes } from '../topology/routes';
import { ApiError } from '../errors/api-error';
import { methodsForPath } from './route-match';

/**
 * The error for a request that no route serves: 405 `method_not_allowed` (with an Allow
 * header) when the path is a route's path with another method, else 404 `not_found`.
 * The path is the one API Gateway received, without the stage.
 */
export const unroutedRequestError = (event: Pick<APIGatewayProxyEvent, 'path' | 'httpMethod'>): ApiError => {
  const allowed = methodsForPath(routes, event.path);
  if (allowed.length > 0) {
    return new ApiError(
      405,
      'method_not_allowed',
      `Method ${event.httpMethod} is not allowed on this path; use ${allowed.join(' or ')}.`,
      {},
      { Allow: allowed.join(', ') },
    );
  }
  return new ApiError(404, 'not_found', 'Not found.');
};
