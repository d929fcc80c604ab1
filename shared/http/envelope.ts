import type middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ApiError, isApiError } from './api-error';
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

/** Maps any thrown value to the ApiError it is answered with, logging unexpected ones. */
export const toApiError = (error: unknown, requestId: string | undefined): ApiError => {
  if (isApiError(error)) return error;
  logger.error('unhandled error', { ...(requestId ? { function_request_id: requestId } : {}), error: error instanceof Error ? error : String(error) });
  return new ApiError(500, 'internal_error', 'An internal error occurred.');
};

/**
 * The outermost middleware of every HTTP route. Errors of any kind become the JSON
 * `{detail, code}` response with the spec's status (unknown errors: a logged, generic 500);
 * successful responses get the JSON content type; headers added with addResponseHeaders
 * reach both.
 */
export const httpEnvelope = (): HttpMiddleware => ({
  after: async (request) => {
    const response = request.response;
    if (!response) return;
    request.response = {
      ...response,
      headers: { ...jsonHeaders, ...collectedHeaders(request), ...(response.headers ?? {}) },
    };
  },
  onError: async (request) => {
    const apiError = toApiError(request.error, request.context?.awsRequestId);
    noteAnswerCode(apiError.code);
    const response = errorResponse(apiError);
    request.response = { ...response, headers: { ...collectedHeaders(request), ...response.headers } };
  },
});
