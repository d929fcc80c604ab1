import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { DeveloperCaller } from '../auth/two-factor';
import { batchGetItems, type TableKey } from '../db/batch-get';
import type { SdkSettingKey, TableConfig } from '../config/function-config';
import type { ApiKeyScope } from '../auth/scopes';
import { documentClient } from '../db/client';
import { authenticate } from './developer/authenticate';
import { callerLogKeys } from './developer/caller-log-keys';
import { headStart } from './developer/head-start';
import { rateLimit } from './developer/rate-limit';
import { rateLimitHeaders } from './developer/rate-limit-headers';
import { requireScope } from './developer/require-scope';
import { speculativeRead } from './developer/speculative-read';
import { developerState, started, type RouteRead } from './developer/state';
import type { HttpMiddleware } from './envelope';
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
export const developerDeps = (config: Pick<TableConfig, 'region' | 'dynamodbEndpoint' | 'tableName' | SdkSettingKey>): DeveloperDeps => ({
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
  /**
   * The result of the route's `prepare` step: its value, or its error thrown at the point
   * where the route awaits it (so a route orders its own errors). Without a step: undefined.
   */
  prepared: () => Promise<Prepared>;
}

/** How an Area A route is built. */
export interface DeveloperRouteOptions<Prepared, Deps extends DeveloperDeps, Looked = undefined> {
  /** A list request (A1): the minimum poll interval applies. */
  list?: boolean;
  /** The API key scope the route needs (issue #33): 403 insufficient_scope without it; none named, every key. */
  scope?: ApiKeyScope;
  /** Parse the body as JSON (after authentication and rate limiting). */
  json?: boolean;
  /**
   * Validation and at most one READ, never a write. It starts beside the rate-limit write
   * when this container's view of the caller's rate-limit item expects the request to be
   * admitted (one round trip saved), otherwise once the request is admitted (a request the
   * container knows to be over a limit makes no business call). When the rate limit refuses
   * the request, a started read is discarded and the 429 answers.
   */
  prepare?: (request: { event: APIGatewayProxyEvent; caller: DeveloperCaller; looked: Promise<Looked> }, deps: Deps) => Promise<Prepared>;
  /**
   * A read that depends on the request alone, started as it arrives, beside authentication
   * (one round trip saved where `prepare` needs it before its own read: A1's customer filter).
   * Its result reaches `prepare` only, so nothing of it is used before the caller is verified.
   */
  lookup?: (event: APIGatewayProxyEvent, deps: Deps) => Promise<Looked>;
  /**
   * Instead of `prepare`: the keys of the items the route reads, for the caller (it may throw a
   * validation error, kept for `prepared()` like prepare's). `prepared()` then gives the items in
   * the keys' order (undefined for one absent). Read like prepare's read (one BatchGetItem),
   * except on a warm request expected to be admitted, where they ride in the authentication
   * BatchGetItem: 2 calls in 1 round trip.
   */
  items?: (event: APIGatewayProxyEvent, caller: DeveloperCaller) => TableKey[];
  /** The dependencies, built once per container (functions/ builds them with developerDeps; tests pass their own). */
  deps: Deps;
}

interface Admitted {
  caller: DeveloperCaller;
  prepared: () => Promise<unknown>;
}

/** The keys a route's `items` names; none when it throws (the read then keeps that error for prepared()). */
const keysOf = (
  items: (event: APIGatewayProxyEvent, caller: DeveloperCaller) => TableKey[],
  event: APIGatewayProxyEvent,
  caller: DeveloperCaller,
): { keys?: TableKey[] } => {
  try {
    return { keys: items(event, caller) };
  } catch {
    return {};
  }
};

/** Items by key (one BatchGetItem, eventually consistent), in the keys' order; undefined for one absent. */
const getItems = async (deps: DeveloperDeps, keys: TableKey[]): Promise<(Record<string, unknown> | undefined)[]> =>
  inKeyOrder(keys, await batchGetItems(deps.db, deps.tableName, keys));

/** Found items in the order of their keys (undefined for one not found). */
export const inKeyOrder = (keys: readonly TableKey[], found: readonly Record<string, unknown>[]): (Record<string, unknown> | undefined)[] =>
  keys.map((wanted) => found.find((item) => item.PK === wanted.PK && item.SK === wanted.SK));

/** The route's lookup and read (its `prepare` or `items`) as the middlewares start them. */
const routeRead = <Prepared, Deps extends DeveloperDeps, Looked>(options: DeveloperRouteOptions<Prepared, Deps, Looked>): RouteRead => {
  const { deps, items, prepare, lookup } = options;
  return {
    reads: prepare !== undefined || items !== undefined,
    looksUp: lookup !== undefined,
    lookup: (event) => started(lookup ? lookup(event, deps) : Promise.resolve(undefined)),
    ...(items ? { itemKeys: (event: APIGatewayProxyEvent, caller: DeveloperCaller) => keysOf(items, event, caller) } : {}),
    // Async, so that a synchronous throw (a validation error) is kept for the route too.
    start: (event, caller, looked) =>
      started(
        (async () => {
          if (items) return getItems(deps, items(event, caller));
          return prepare ? prepare({ event, caller, looked: looked as Promise<Looked> }, deps) : undefined;
        })(),
      ),
  };
};

/**
 * The last step of the Area A chain: hands the verified caller and the route's read to the
 * route's function, starting the read now if ./developer/speculative-read.ts did not.
 */
const handOver = (read: RouteRead, admitted: WeakMap<APIGatewayProxyEvent, Admitted>): HttpMiddleware => ({
  before: async (request) => {
    const { event } = request;
    const state = developerState(request);
    const caller = state.caller!;
    const settled = state.prepared ?? read.start(event, caller, state.looked ?? Promise.resolve(undefined));
    admitted.set(event, { caller, prepared: () => settled });
  },
});

/**
 * The middleware every Area A route shares, after the JSON envelope, one job each
 * (shared/http/developer/): the rate-limit headers on whatever the request ends with; the
 * head start (the lookup, and on a warm request the authentication read, the rate-limit write
 * and the expected read all at once); two-factor authentication (401/403, without rate-limit
 * headers: no user is known to count); the key's scope (403 insufficient_scope); the speculative read beside the rate-limit write; the
 * rate limit (429 before the route's function runs); the caller's log keys; the hand-over.
 */
const developerChain = <Prepared, Deps extends DeveloperDeps, Looked>(
  options: DeveloperRouteOptions<Prepared, Deps, Looked>,
  admitted: WeakMap<APIGatewayProxyEvent, Admitted>,
): HttpMiddleware[] => {
  const read = routeRead(options);
  const list = options.list ?? false;
  return [
    rateLimitHeaders(),
    headStart(options.deps, read, list, options.scope),
    authenticate(options.deps),
    requireScope(options.scope),
    speculativeRead(options.deps, read, list),
    rateLimit(options.deps, list),
    callerLogKeys(),
    handOver(read, admitted),
  ];
};

/**
 * Builds an Area A route on httpRoute: the JSON error envelope, then the Area A middlewares
 * (developerChain: two factors, rate limit and its headers, the optional `prepare` step or
 * `items` read, beside the rate-limit write when that is expected to admit), then JSON body
 * parsing when asked, then `handler` with the verified caller.
 * Order of answers: authentication and scope (401/403), then rate limit (429), then validation and
 * the route's own errors.
 */
export const developerRoute = <Prepared = undefined, Deps extends DeveloperDeps = DeveloperDeps, Looked = undefined>(
  options: DeveloperRouteOptions<Prepared, Deps, Looked>,
  handler: (request: DeveloperRequest<Prepared>, deps: Deps) => Promise<APIGatewayProxyResult>,
) => {
  const admitted = new WeakMap<APIGatewayProxyEvent, Admitted>();
  return httpRoute({ json: options.json, guards: developerChain(options, admitted) }, async (event, context) => {
    const state = admitted.get(event);
    if (!state) throw new Error('developerRoute: the request was not admitted by its guard');
    return handler({ event, context, caller: state.caller, prepared: state.prepared as () => Promise<Prepared> }, options.deps);
  });
};
