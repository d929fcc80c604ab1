import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { observeHttp } from '../observability/http-invocation';
import { httpEnvelope, type HttpMiddleware } from './envelope';
import { jsonBody } from './json-body';

/** The inner function of an HTTP route: the (parsed) event in, an API Gateway result out. */
export type RouteHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** How a route's middleware chain is assembled. */
export interface RouteOptions {
  /** Parse the body as JSON (invalid JSON is 400 invalid_json). */
  json?: boolean;
  /** Middleware that runs after the envelope and before body parsing (auth, rate limits). */
  guards?: HttpMiddleware[];
}

/**
 * Wraps a route's function in the shared middleware chain: the error handling outermost
 * (httpEnvelope: @middy/http-error-handler, then the JSON `{detail, code}` envelope after
 * it), then the route's guards, then JSON body parsing when the route takes JSON.
 * Every HTTP handler of the service is built with this (directly or through an area's
 * own wrapper), so no route repeats error handling. Around the chain, observeHttp
 * (shared/observability/http-invocation.ts): the log context with the request id as
 * correlation id, the `X-Request-Id` header on every answer, the request's metrics.
 */
export const httpRoute = (options: RouteOptions, handler: RouteHandler) => {
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>(handler).use(httpEnvelope());
  for (const guard of options.guards ?? []) chain.use(guard);
  if (options.json) chain.use(jsonBody());
  return observeHttp(chain);
};
