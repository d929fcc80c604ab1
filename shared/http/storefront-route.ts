import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { header } from './headers';
import { httpRoute } from './route';
import { serviceTokenGuard } from './service-token';

/** What a storefront route's function receives. */
export interface StorefrontRequest {
  event: APIGatewayProxyEvent;
  /** The parsed JSON body (the route takes JSON unless told otherwise). */
  body: unknown;
  /** The optional Idempotency-Key header. */
  idempotencyKey?: string;
  context: Context;
}

/** How a storefront route is assembled. */
export interface StorefrontRouteOptions {
  /** Parse the body as JSON (default true); invalid JSON is 400 invalid_json, after authentication. */
  json?: boolean;
}

/**
 * Wraps an Area B route: the JSON error envelope, then the service-token guard (before the
 * body is parsed, so an unauthenticated caller learns nothing about its body), then JSON
 * body parsing. Every storefront handler is built with this.
 */
export const storefrontRoute = (
  options: StorefrontRouteOptions,
  handler: (request: StorefrontRequest) => Promise<APIGatewayProxyResult>,
) =>
  httpRoute({ json: options.json ?? true, guards: [serviceTokenGuard()] }, async (event, context) =>
    handler({ event, body: event.body as unknown, idempotencyKey: header(event, 'Idempotency-Key'), context }),
  );
