import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { DeveloperCaller } from '../../auth/two-factor';
import type { TableKey } from '../../db/batch-get';
import type { RateLimitOutcome, RateLimitRequest } from '../../rate-limit/rate-limit';
import type { HttpRequest } from '../envelope';

/**
 * What the Area A middlewares (./*.ts, composed by ../developer-route.ts) learn about one
 * request, kept in Middy's `request.internal`. Each middleware reads what an earlier one
 * wrote and writes its own part: the head start its promises, authentication the caller,
 * the read its started read, the rate limit its answer.
 */
export interface DeveloperState {
  /** The route's lookup, started as the request arrives (./head-start.ts). */
  looked?: Promise<unknown>;
  /** On a warm request: the caller this container verified before for the same credentials. */
  hint?: DeveloperCaller;
  /** On a warm request: the authentication read, started by the head start (with `itemKeys`). */
  verifying?: Promise<{ caller: DeveloperCaller; also?: (Record<string, unknown> | undefined)[] }>;
  /** On a warm request: the keys of the route's items that ride in the authentication read. */
  itemKeys?: TableKey[];
  /** On a warm request: the rate-limit write for `hint`, started beside authentication. */
  counted?: Promise<RateLimitOutcome>;
  /** The verified caller (./authenticate.ts). */
  caller?: DeveloperCaller;
  /** The items that rode in the authentication read, in their keys' order. */
  also?: (Record<string, unknown> | undefined)[];
  /** The route's read (its `prepare` or `items`), once started. */
  prepared?: Promise<unknown>;
  /** The rate limit's answer (./rate-limit.ts): its headers, and its refusal if any. */
  limit?: RateLimitOutcome;
}

const stateKey = 'developer';

/** The request's DeveloperState (made empty on first use). */
export const developerState = (request: Pick<HttpRequest, 'internal'>): DeveloperState => {
  const internal = request.internal as Record<string, unknown>;
  return (internal[stateKey] ??= {}) as DeveloperState;
};

/** The rate-limit request of a caller. */
export const countOf = (caller: DeveloperCaller, list: boolean): RateLimitRequest => ({ userId: caller.userId, customerId: caller.customerId, list });

/** A started promise whose rejection is left for its reader (no unhandled-rejection warning). */
export const started = <T>(promise: Promise<T>): Promise<T> => {
  promise.catch(() => undefined);
  return promise;
};

/**
 * The route's own read, as the middlewares start it: `lookup` (a read of the request alone),
 * then `prepare` (validation and at most one read) or the `items` it names. Built once per
 * route by ../developer-route.ts.
 */
export interface RouteRead {
  /** Whether the route reads anything before its function runs (a `prepare` or `items`). */
  reads: boolean;
  /** Whether the route has a lookup. */
  looksUp: boolean;
  /** The lookup, started now. */
  lookup: (event: APIGatewayProxyEvent) => Promise<unknown>;
  /** The keys of the route's items for a caller: `{}` when they throw, undefined without `items`. */
  itemKeys?: (event: APIGatewayProxyEvent, caller: DeveloperCaller) => { keys?: TableKey[] };
  /** The read for a caller, started now; an error (also a synchronous one) is kept for its reader. */
  start: (event: APIGatewayProxyEvent, caller: DeveloperCaller, looked: Promise<unknown>) => Promise<unknown>;
}
