/**
 * The request the benchmark sends to each route, derived from the route table and the route's
 * event fixture (events/<name>.json: method, path, query and body of a request that reaches
 * the route's success path against the demo seed), so a new route with its fixture is
 * measured without touching the benchmark. Area A requests are re-pointed at the bench group
 * (its SIMs, a developer with rate-limit budget); bodies get fresh ids where a value must be
 * unique (`message_id`), and a receipt's `reference` names the message an earlier request
 * sent. (A payment event keeps the fixture's order id: its route only verifies and enqueues.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { RouteDefinition } from '../../shared/topology/routes';
import { makeRouteEvent } from '../../local/event-fixtures';
import { invokeHandler, loadHandler } from '../../local/handler-loader';
import { lambdaContext } from '../../local/lambda-context';
import type { BenchCredential, BenchData } from './bench-seed';

/** Hands out developers so that no measured request meets a rate limit. */
export class CredentialPool {
  private next = 0;

  constructor(
    private readonly credentials: BenchCredential[],
    private readonly label: string,
  ) {}

  /** A developer no request has used yet (a list request needs one: one list per 5 s). */
  fresh(): BenchCredential {
    const credential = this.credentials[this.next];
    if (!credential) throw new Error(`the bench seed has too few ${this.label} developers (${this.credentials.length})`);
    this.next += 1;
    return credential;
  }

  /** `count` unused developers at once (throughput's round robin). */
  take(count: number): BenchCredential[] {
    return Array.from({ length: Math.min(count, this.credentials.length - this.next) }, () => this.fresh());
  }

  /**
   * A source of credentials that gives each developer `perUser` requests (9: under the burst
   * limit of 10 per 10 s), then moves to a fresh one; `list` routes always get a fresh one.
   */
  budgeted(perUser = 9): (list: boolean) => BenchCredential {
    let current: BenchCredential | undefined;
    let used = 0;
    return (list) => {
      if (list) return this.fresh();
      if (!current || used >= perUser) {
        current = this.fresh();
        used = 0;
      }
      used += 1;
      return current;
    };
  }
}

/**
 * Whether a route is A1's list, under the minimum poll interval (one list per 5 s per
 * developer), so that every request of it needs a developer that has not listed yet.
 */
export const isListRoute = (route: RouteDefinition): boolean =>
  route.area === 'developer' && route.method === 'GET' && route.path === '/developer/api/sims/';

/** What earlier requests created, for the requests that refer to it. */
export interface RequestState {
  /** A message sent by an SMS route (its message_id). */
  messageId?: string;
  /** An order created by a checkout route. */
  orderId?: string;
  /** A webhook subscription created by create-webhook (its id). */
  webhookId?: string;
}

/** One request to a route, ready to be turned into its API Gateway event. */
export interface BenchRequest {
  route: RouteDefinition;
  path: string;
  query: string;
  body?: string;
  /** Area A: the developer sending it. */
  credential?: BenchCredential;
  /** Whether the answer is the route's success path (2xx; a fallback's 404). */
  expected: (status: number) => boolean;
}

interface Fixture {
  path: string;
  query: string;
  body?: string;
}

/** The request parts of events/<route name>.json, or undefined when the route has no fixture yet. */
export const fixtureOf = (repositoryRoot: string, route: RouteDefinition): Fixture | undefined => {
  const file = join(repositoryRoot, 'events', `${route.name}.json`);
  if (!existsSync(file)) return undefined;
  const event = JSON.parse(readFileSync(file, 'utf8')) as APIGatewayProxyEvent;
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    for (const value of values ?? []) query.append(name, value);
  }
  const body = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body) : undefined;
  return { path: event.path, query: query.toString(), ...(body !== undefined ? { body } : {}) };
};

let uniqueCounter = 0;
/** A value unique within this run (message ids). */
export const uniqueId = (prefix: string): string => `${prefix}-${process.pid}-${Date.now().toString(36)}-${(uniqueCounter += 1)}`;

const adjustBody = (body: string | undefined, state: RequestState): string | undefined => {
  if (body === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return body;
  const object = parsed as Record<string, unknown>;
  if (typeof object.message_id === 'string') object.message_id = uniqueId('bench-msg');
  if (typeof object.reference === 'string' && state.messageId) object.reference = state.messageId;
  return JSON.stringify(object);
};

/**
 * The request to `route`, or the reason it cannot be built (no fixture yet, or a path
 * parameter whose value no earlier request created).
 */
export const requestFor = (
  repositoryRoot: string,
  route: RouteDefinition,
  data: BenchData,
  state: RequestState,
  credential?: BenchCredential,
): BenchRequest | { skip: string } => {
  const fixture = fixtureOf(repositoryRoot, route);
  if (!fixture) return { skip: `no event fixture events/${route.name}.json yet` };
  const expected = route.path.includes('{proxy+}') ? (status: number) => status === 404 : (status: number) => status >= 200 && status < 300;
  let path = fixture.path;
  if (route.area === 'developer' && !route.path.includes('{proxy+}')) {
    const sms = /\{sim\}\/sms/.test(route.path);
    if (route.path.includes('{message_id}') && !state.messageId) return { skip: 'no message was sent before (send-sms)' };
    if (route.path.includes('{webhook}') && !state.webhookId) return { skip: 'no webhook subscription was created before (create-webhook)' };
    path = route.path
      .replace('{sim}', sms ? data.bench.smsIccid : String(data.bench.simIds[0]))
      .replace('{message_id}', state.messageId ?? '')
      .replace('{webhook}', state.webhookId ?? '')
      .replace(/\{[^}]+\}/g, 'example');
  }
  return {
    route,
    path,
    query: fixture.query,
    ...(fixture.body !== undefined ? { body: adjustBody(fixture.body, state) } : {}),
    ...(route.area === 'developer' && credential ? { credential } : {}),
    expected,
  };
};

/** A handler's answer, with the time the invocation took. */
export interface Invocation {
  status: number;
  body: string;
  headers: Record<string, string>;
  ms: number;
}

/** The API Gateway event of a bench request (built by the local gateway's own event code). */
export const eventOf = (request: BenchRequest): APIGatewayProxyEvent =>
  makeRouteEvent(request.route, {
    path: request.path,
    query: request.query,
    ...(request.body !== undefined ? { body: request.body } : {}),
    ...(request.credential ? { credentials: { bearerToken: request.credential.bearerToken, apiKey: request.credential.apiKey } } : {}),
    now: Date.now(),
  });

/**
 * Invokes the route's handler in this process, as the local gateway does (the same module,
 * imported once, warm after the first call), and times the invocation alone.
 */
export const invokeRoute = async (request: BenchRequest, event: APIGatewayProxyEvent = eventOf(request)): Promise<Invocation> => {
  const handler = await loadHandler(request.route.handler);
  const context = lambdaContext({ name: request.route.name, timeoutSeconds: request.route.timeoutSeconds, memoryMb: request.route.memoryMb });
  const started = performance.now();
  const result = (await invokeHandler(handler, event, context, 30_000)) as APIGatewayProxyResult;
  const ms = performance.now() - started;
  return {
    status: Number(result.statusCode),
    body: result.body ?? '',
    headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)])),
    ms,
  };
};

/** Remembers what a successful answer created (a message id, an order id) for later requests. */
export const rememberCreated = (state: RequestState, invocation: Invocation): void => {
  if (invocation.status < 200 || invocation.status >= 300) return;
  try {
    const body = JSON.parse(invocation.body) as { message_id?: unknown; order_id?: unknown; id?: unknown };
    if (typeof body.message_id === 'string') state.messageId = body.message_id;
    if (typeof body.id === 'string' && body.id.startsWith('wh_')) state.webhookId = body.id;
    if (typeof body.order_id === 'string') state.orderId = body.order_id;
  } catch {
    /* not JSON: nothing to remember */
  }
};
