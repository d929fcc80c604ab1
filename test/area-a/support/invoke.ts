import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { allRoutes } from '../../../shared/topology/routes';
import { buildApiGatewayEvent } from '../../../local/api-gateway-event';
import { lambdaContext } from '../../../local/lambda-context';
import { loadSeedDocument } from '../../../local/seed/load';
import { developerFallbackRoute } from '../../../shared/routes/developer-fallback';
import { getSimRoute } from '../../../shared/routes/get-sim';
import { listSimsRoute } from '../../../shared/routes/list-sims';
import type { DeveloperDeps } from '../../../shared/http/developer-route';
import { matchRoute } from '../../../shared/http/route-match';
import { createTestTable, testDocumentClient, testDynamoClient } from '../../support/resources';

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** A clock the test moves by hand (epoch milliseconds). */
export interface TestClock {
  now: number;
}

/**
 * A fresh table loaded with `document`, a document client on it and deps with a controlled
 * clock. The handlers run in the test's process and no stream reader reads the table, so it
 * has no stream.
 */
export const tableWithSeed = async (document: unknown, clock: TestClock) => {
  const tableName = await createTestTable({ stream: false });
  const client = testDynamoClient();
  await loadSeedDocument(document, { client, tableName });
  const db = testDocumentClient(client);
  const deps: DeveloperDeps = { db, tableName, now: () => clock.now };
  return { tableName, client, db, deps };
};

/** The Area A handlers built on `deps` (as the deployed ones are, with another clock and client). */
export const areaAHandlers = (deps: DeveloperDeps): Record<string, Handler> => ({
  'list-sims': listSimsRoute(deps) as unknown as Handler,
  'get-sim': getSimRoute(deps) as unknown as Handler,
  'developer-fallback': developerFallbackRoute(deps) as unknown as Handler,
});

/** A handler's response: status, headers and parsed body. */
export interface InvokeResult {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  rawBody: string;
}

/**
 * Invokes the handler that the route table chooses for `method path?query`, with the event
 * API Gateway would send (built by the local gateway's own event builder). Fails unless the
 * answer carries the event's request id as `X-Request-Id`, which the returned headers leave out.
 */
export const invoke = async (
  handlers: Record<string, Handler>,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<InvokeResult> => {
  const method = options.method ?? 'GET';
  const [rawPath, rawQuery = ''] = path.split('?') as [string, string?];
  const found = matchRoute(allRoutes(), method, rawPath);
  if (!found) throw new Error(`no route for ${method} ${rawPath}`);
  const handler = handlers[found.route.name];
  if (!handler) throw new Error(`no handler for route ${found.route.name}`);
  const event = buildApiGatewayEvent(
    { resource: found.route.path, pathParameters: found.pathParameters },
    {
      method,
      path: rawPath,
      rawQuery,
      rawHeaders: Object.entries(options.headers ?? {}).flat(),
      body: Buffer.alloc(0),
      sourceIp: '127.0.0.1',
      localPort: 3000,
    },
  );
  const result = await handler(event, lambdaContext({ name: found.route.name }));
  // Every answer carries the request id as X-Request-Id; checked here for every test, then
  // left out of the headers the tests compare.
  const { 'X-Request-Id': requestId, ...headers } = result.headers ?? {};
  if (requestId !== event.requestContext.requestId) {
    throw new Error(`X-Request-Id ${String(requestId)} is not the request's id ${event.requestContext.requestId}`);
  }
  return {
    status: result.statusCode,
    headers: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)])),
    body: JSON.parse(result.body),
    rawBody: result.body,
  };
};

/** The six rate-limit headers with the given remaining counts. */
export const rateHeaders = (remaining: { burst: number; minute: number; hour: number }) => ({
  'X-RateLimit-Limit-Burst': '10',
  'X-RateLimit-Remaining-Burst': String(remaining.burst),
  'X-RateLimit-Limit-Minute': '60',
  'X-RateLimit-Remaining-Minute': String(remaining.minute),
  'X-RateLimit-Limit-Hour': '1500',
  'X-RateLimit-Remaining-Hour': String(remaining.hour),
});
