/**
 * What every HTTP route does around its middleware chain (shared/http/route.ts): the
 * invocation's log context with the API Gateway request id as correlation id, the
 * `X-Request-Id` answer header that carries it, and the request's metrics.
 */
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { answerCode, logKeys, withInvocation } from './invocation';
import { recordMetric } from './metrics';

/** The header every HTTP answer carries: the request's correlation id (API Gateway's request id). */
const requestIdHeader = 'X-Request-Id';

/**
 * The correlation id of an HTTP request: API Gateway's `requestContext.requestId` (the local
 * gateway makes one per request too), else the Lambda request id (an event without a request
 * context: a hand-made test event).
 */
export const httpCorrelationId = (event: Pick<APIGatewayProxyEvent, 'requestContext'> | null | undefined, context: Pick<Context, 'awsRequestId'>): string =>
  event?.requestContext?.requestId || context.awsRequestId;

/** The route dimension of a request: its method and API Gateway resource (`GET /developer/api/sims/{sim}/`). */
export const routeOf = (event: Pick<APIGatewayProxyEvent, 'httpMethod' | 'resource' | 'path'> | null | undefined): string =>
  `${event?.httpMethod ?? 'none'} ${event?.resource ?? event?.path ?? 'none'}`;

/** `2xx`, `4xx`, `5xx` ... of a status code. */
export const statusClass = (status: number): string => `${Math.floor(status / 100)}xx`;

/**
 * Wraps an HTTP handler: runs it in an invocation context whose correlation_id is the request
 * id (every log line of the request carries it), adds `X-Request-Id` to its answer, and
 * records Requests (route, status class), Latency (route), RateLimited and AuthFailures (by
 * code) and ColdStart. A malformed event (null, no request context: never from API Gateway)
 * still reaches the chain, whose envelope answers it.
 */
export const observeHttp =
  (handler: (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>) =>
  (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const correlation = httpCorrelationId(event, context);
    return withInvocation(context, { correlation_id: correlation }, async () => {
      const started = Date.now();
      if (logKeys().cold_start === true) recordMetric('ColdStart', { function_name: context.functionName });
      const result = await handler(event, context);
      const status = Number(result.statusCode);
      const route = routeOf(event);
      recordMetric('Requests', { route, status_class: statusClass(status) });
      recordMetric('Latency', { route }, Date.now() - started);
      const code = answerCode();
      if (status === 429) recordMetric('RateLimited', { code });
      if (status === 401 || status === 403) recordMetric('AuthFailures', { code });
      return { ...result, headers: { ...(result.headers ?? {}), [requestIdHeader]: correlation } };
    });
  };
