import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { cachedCaller, forgetCaller, rememberCaller, sameCaller } from '../auth/caller-cache';
import { authenticateDeveloper, authenticateDeveloperWith, type DeveloperCaller } from '../auth/two-factor';
import { batchGetItems, type TableKey } from '../db/batch-get';
import type { TableConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { consumeRateLimit, expectsAdmission, type RateLimitOutcome } from '../rate-limit/rate-limit';
import { appendLogKeys } from '../observability/invocation';
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

/** The keys a route's `items` names; none when it throws (prepareFor then keeps that error for prepared()). */
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

const ignore = (): undefined => undefined;

/** A started promise whose rejection is left for its reader (no unhandled-rejection warning). */
const started = <T>(promise: Promise<T>): Promise<T> => {
  promise.catch(() => undefined);
  return promise;
};

/**
 * The middleware every Area A route shares, after the JSON envelope: two-factor
 * authentication (shared/auth), then the rate limit (shared/rate-limit), whose six
 * X-RateLimit-* headers are added to whatever the request ends with (2xx, 4xx of validation,
 * 404/405, 429); a refused request is answered 429 before the route's function runs.
 * Failed authentication answers 401/403 without those headers: no user is known to count.
 *
 * Warm (shared/auth/caller-cache.ts): when this container already verified the same token and
 * key, the consistent authentication read, the rate-limit write for that caller and the
 * route's read all start at once (one round trip instead of two). The answer is still decided
 * in the same order by the same read: a failed authentication answers 401/403 (and forgets
 * the pair), whatever the rate limit said.
 */
const developerGuard = <Prepared, Deps extends DeveloperDeps, Looked>(
  options: DeveloperRouteOptions<Prepared, Deps, Looked>,
  resolved: Deps,
  admitted: WeakMap<APIGatewayProxyEvent, Admitted>,
): HttpMiddleware => ({
  before: async (request) => {
    const { event } = request;
    const list = options.list ?? false;
    const countFor = (caller: DeveloperCaller) => ({ userId: caller.userId, customerId: caller.customerId, list });
    const looked = started(options.lookup ? options.lookup(event, resolved) : Promise.resolve(undefined as Looked));
    // Async, so that a synchronous throw (a validation error) is kept for the route too.
    const prepareFor = (caller: DeveloperCaller) =>
      started(
        (async () => {
          if (options.items) return (await getItems(resolved, options.items(event, caller))) as Prepared;
          return options.prepare ? options.prepare({ event, caller, looked }, resolved) : (undefined as Prepared);
        })(),
      );
    const hasRead = options.prepare !== undefined || options.items !== undefined;
    const prepareEarly = (caller: DeveloperCaller) =>
      hasRead && expectsAdmission(resolved, countFor(caller)) ? prepareFor(caller) : undefined;

    const hint = cachedCaller(event.headers);
    let caller: DeveloperCaller;
    let limit: RateLimitOutcome;
    let prepared: Promise<Prepared> | undefined;
    if (hint) {
      // The route's items ride in the authentication read when admission is expected.
      const expected = hasRead && expectsAdmission(resolved, countFor(hint));
      const itemKeys = expected && options.items ? keysOf(options.items, event, hint) : undefined;
      prepared = expected && !itemKeys?.keys ? prepareFor(hint) : undefined;
      const [verified, counted] = await Promise.allSettled([
        authenticateDeveloperWith(resolved, event, itemKeys?.keys),
        started(consumeRateLimit(resolved, countFor(hint))),
      ]);
      if (verified.status === 'rejected') {
        forgetCaller(event.headers);
        throw verified.reason;
      }
      caller = verified.value.caller;
      if (itemKeys?.keys) prepared = Promise.resolve(verified.value.also as Prepared);
      if (sameCaller(caller, hint)) {
        if (counted.status === 'rejected') throw counted.reason;
        limit = counted.value;
      } else {
        rememberCaller(event.headers, caller);
        prepared = undefined;
        limit = await consumeRateLimit(resolved, countFor(caller));
      }
    } else {
      caller = await authenticateDeveloper(resolved, event);
      rememberCaller(event.headers, caller);
      // The rate-limit write waits for the lookup too (started beside authentication), so that it
      // and the route's read that needs the lookup go out together: one round trip, not two
      // overlapping ones when the lookup answers after the rate-limit write.
      if (options.lookup && hasRead) await looked.then(ignore, ignore);
      prepared = prepareEarly(caller);
      limit = await consumeRateLimit(resolved, countFor(caller));
    }
    addResponseHeaders(request, limit.headers);
    // Who is calling, on every later log line of the request (ids, never the credentials).
    appendLogKeys({ user_id: caller.userId, customer_id: caller.customerId });
    if (limit.rejection) throw limit.rejection;
    const settled = prepared ?? prepareFor(caller);
    admitted.set(event, { caller, prepared: () => settled });
  },
});

/**
 * Builds an Area A route on httpRoute: the JSON error envelope, then developerGuard (two
 * factors, rate limit and its headers, the optional `prepare` step or `items` read, beside the
 * rate-limit write when that is expected to admit), then JSON body parsing when asked, then
 * `handler` with the verified caller.
 * Order of answers: authentication (401/403), then rate limit (429), then validation and
 * the route's own errors.
 */
export const developerRoute = <Prepared = undefined, Deps extends DeveloperDeps = DeveloperDeps, Looked = undefined>(
  options: DeveloperRouteOptions<Prepared, Deps, Looked>,
  handler: (request: DeveloperRequest<Prepared>, deps: Deps) => Promise<APIGatewayProxyResult>,
) => {
  const admitted = new WeakMap<APIGatewayProxyEvent, Admitted>();
  return httpRoute({ json: options.json, guards: [developerGuard(options, options.deps, admitted)] }, async (event, context) => {
    const state = admitted.get(event);
    if (!state) throw new Error('developerRoute: the request was not admitted by its guard');
    return handler({ event, context, caller: state.caller, prepared: state.prepared as () => Promise<Prepared> }, options.deps);
  });
};
