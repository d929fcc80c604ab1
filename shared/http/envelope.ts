import type middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ApiError, isApiError } from '../errors/api-error';
import { logger } from '../observability/logger';
import { noteAnswerCode } from '../observability/invocation';
import { errorResponse, jsonHeaders } from './responses';

/** The Middy request of an API Gateway (REST API, payload v1) route. */
export type HttpRequest = middy.Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

/** The Middy middleware of an API Gateway route. */
export type HttpMiddleware = middy.MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

const extraHeadersKey = 'responseHeaders';

/**
 * Adds headers to whatever response this request ends with, success or error alike
 * (the rate-limit headers that every Area A response carries are added this way).
 */
export const addResponseHeaders = (request: HttpRequest, headers: Record<string, string>): void => {
  const internal = request.internal as Record<string, unknown>;
  internal[extraHeadersKey] = { ...((internal[extraHeadersKey] as Record<string, string>) ?? {}), ...headers };
};

const collectedHeaders = (request: HttpRequest): Record<string, string> =>
  ((request.internal as Record<string, unknown>)[extraHeadersKey] as Record<string, string>) ?? {};

/**
 * Logs an error the service did not mean to answer (anything but an ApiError) as
 * `unhandled error`; the invocation's log context adds the request ids. http-error-handler's
 * logger: the only place that sees such an error before the handler replaces it.
 */
const logUnexpected = (error: unknown): void => {
  if (isApiError(error)) return;
  logger.error('unhandled error', { error: error instanceof Error ? error : String(error) });
};

/**
 * The normalising step after @middy/http-error-handler (outside it in the chain: Middy runs
 * onError innermost-out). The handler answers an exposed error in text/plain and anything
 * else as a bare 500; this answers the same request as JSON `{detail, code}`: the ApiError's
 * body, status and headers, or a generic 500 `internal_error` that leaks nothing, with the
 * headers added by addResponseHeaders. A successful response gets the JSON content type and
 * those headers too.
 */
const jsonEnvelope = (): HttpMiddleware => ({
  after: async (request) => {
    const response = request.response;
    if (!response) return;
    request.response = {
      ...response,
      headers: { ...jsonHeaders, ...collectedHeaders(request), ...(response.headers ?? {}) },
    };
  },
  onError: async (request) => {
    const apiError = isApiError(request.error) ? request.error : new ApiError(500, 'internal_error', 'An internal error occurred.');
    noteAnswerCode(apiError.code);
    const response = errorResponse(apiError);
    const handled = (request.response as Partial<APIGatewayProxyResult> | undefined)?.headers ?? {};
    request.response = { ...response, headers: { ...collectedHeaders(request), ...handled, ...response.headers } };
  },
});

/**
 * The outermost middleware of every HTTP route: @middy/http-error-handler (which errors are
 * answered as themselves, logging the others) and the JSON envelope after it. Errors of any
 * kind become the JSON `{detail, code}` response with the spec's status (unknown errors: a
 * logged, generic 500); successful responses get the JSON content type; headers added with
 * addResponseHeaders reach both.
 */
export const httpEnvelope = (): HttpMiddleware[] => [jsonEnvelope(), httpErrorHandler({ logger: logUnexpected }) as HttpMiddleware];
