import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { authenticateDeveloper, type DeveloperCaller } from '../auth/two-factor';
import type { TableConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { consumeRateLimit } from '../rate-limit/rate-limit';
import { addResponseHeaders, type HttpMiddleware } from './envelope';
import { httpRoute } from './route';

/** What every Area A route has: the table and a clock (epoch milliseconds). */
export interface DeveloperDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => number;
}

/**
 * The dependencies of a deployed (or locally run) Area A function, from its configuration
 * (read once at init by defineFunction, shared/config/define-function.ts).
 */
export const developerDeps = (config: Pick<TableConfig, 'region' | 'dynamodbEndpoint' | 'tableName'>): DeveloperDeps => ({
  db: documentClient(config),
  tableName: config.tableName,
  now: Date.now,
});

/** What an Area A route's function receives. */
export interface DeveloperRequest<Prepared> {
  event: APIGatewayProxyEvent;
  context: Context;
  /** The verified caller: the token's user and the key's customer (the scope). */
  caller: DeveloperCaller;
  /** The result of the route's `prepare` step (undefined without one). */
  prepared: Prepared;
}

/** How an Area A route is built. */
export interface DeveloperRouteOptions<Prepared, Deps extends DeveloperDeps> {
  /** A list request (A1): the minimum poll interval applies. */
  list?: boolean;
  /** Parse the body as JSON (after authentication and rate limiting). */
  json?: boolean;
  /**
   * Validation and at most one READ that run beside the rate-limit write, to save a round
   * trip. Must not write: when the rate limit refuses the request, its result (or error) is
   * discarded and the 429 answers. An error it throws answers once the request is admitted.
   */
  prepare?: (request: { event: APIGatewayProxyEvent; caller: DeveloperCaller }, deps: Deps) => Promise<Prepared>;
  /** The dependencies, built once per container (functions/ builds them with developerDeps; tests pass their own). */
  deps: Deps;
}

interface Admitted {
  caller: DeveloperCaller;
  prepared: unknown;
}

/**
 * The middleware every Area A route shares, after the JSON envelope: two-factor
 * authentication (shared/auth), then the rate limit (shared/rate-limit), whose six
 * X-RateLimit-* headers are added to whatever the request ends with (2xx, 4xx of validation,
 * 404/405, 429); a refused request is answered 429 before the route's function runs.
 * Failed authentication answers 401/403 without those headers: no user is known to count.
 */
const developerGuard = <Prepared, Deps extends DeveloperDeps>(
  options: DeveloperRouteOptions<Prepared, Deps>,
  resolved: Deps,
  admitted: WeakMap<APIGatewayProxyEvent, Admitted>,
): HttpMiddleware => ({
  before: async (request) => {
    const caller = await authenticateDeveloper(resolved, request.event.headers);
    const [limit, prepared] = await Promise.allSettled([
      consumeRateLimit(resolved, { userId: caller.userId, customerId: caller.customerId, list: options.list ?? false }),
      // Async, so that a synchronous throw (a validation error) still waits for the rate limit.
      (async () => (options.prepare ? options.prepare({ event: request.event, caller }, resolved) : undefined))(),
    ]);
    if (limit.status === 'rejected') throw limit.reason;
    addResponseHeaders(request, limit.value.headers);
    if (limit.value.rejection) throw limit.value.rejection;
    if (prepared.status === 'rejected') throw prepared.reason;
    admitted.set(request.event, { caller, prepared: prepared.value });
  },
});

/**
 * Builds an Area A route on httpRoute: the JSON error envelope, then developerGuard (two
 * factors, rate limit and its headers, the optional `prepare` step beside the rate-limit
 * write), then JSON body parsing when asked, then `handler` with the verified caller.
 * Order of answers: authentication (401/403), then rate limit (429), then validation and
 * the route's own errors.
 */
export const developerRoute = <Prepared = undefined, Deps extends DeveloperDeps = DeveloperDeps>(
  options: DeveloperRouteOptions<Prepared, Deps>,
  handler: (request: DeveloperRequest<Prepared>, deps: Deps) => Promise<APIGatewayProxyResult>,
) => {
  const admitted = new WeakMap<APIGatewayProxyEvent, Admitted>();
  return httpRoute({ json: options.json, guards: [developerGuard(options, options.deps, admitted)] }, async (event, context) => {
    const state = admitted.get(event);
    if (!state) throw new Error('developerRoute: the request was not admitted by its guard');
    return handler({ event, context, caller: state.caller, prepared: state.prepared as Prepared }, options.deps);
  });
};
