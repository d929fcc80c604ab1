import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { HttpRequest } from '../../../shared/http/envelope';
import type { DeveloperState } from '../../../shared/http/developer/state';
import { apiKeyOf, tokenOf } from '../../area-a/support/seed';

/** The headers of a request by `user` with the key of `customer` (the Area A test seed). */
export const credentials = (user: string, customer = 'root'): Record<string, string> => ({
  Authorization: `Bearer ${tokenOf(user)}`,
  'X-Customer-API-Key': apiKeyOf(customer),
});

/**
 * A Middy request as Middy hands it to a middleware (as Middy's own package tests build
 * theirs): the event with `headers`, an empty context, no response yet, and `internal`
 * holding the Area A state that earlier middlewares would have written.
 */
export const middyRequest = (headers: Record<string, string> = {}, state?: DeveloperState): HttpRequest => ({
  event: { httpMethod: 'GET', path: '/developer/api/sims/', headers, multiValueHeaders: {}, requestContext: { requestId: 'gateway-request-1' } } as unknown as APIGatewayProxyEvent,
  context: { awsRequestId: 'lambda-request-1', functionName: 'middleware-test' } as Context,
  response: undefined,
  error: undefined as unknown as Error,
  internal: state ? { developer: state } : {},
});

/** The state a middleware left on `request`. */
export const stateOf = (request: HttpRequest): DeveloperState => (request.internal as { developer: DeveloperState }).developer;
