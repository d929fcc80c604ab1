import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { allRoutes, type RouteDefinition } from '../shared/topology/routes';
import { fallbackRouteFor, matchRoute } from '../shared/http/route-match';
import { buildApiGatewayEvent, type ResourceMatch } from './api-gateway-event';
import {
  answerClientError,
  answerOnSocket,
  apiGatewayMethods,
  expectationFailed,
  headRefusal,
  lingeringClose,
  parserMaxHeaderSize,
  unsupportedMethod,
  type GuardAnswer,
} from './gateway-guards';
import { formatLine, logger, logOutput } from '../shared/observability/logger';
import { invokeHandler, loadHandler } from './handler-loader';
import { lambdaContext } from './lambda-context';

/** API Gateway's maximum request payload. */
export const maxBodyBytes = 10 * 1024 * 1024;
/** API Gateway's maximum integration timeout. */
const integrationTimeoutSeconds = 29;

/** Options of the local API gateway. */
export interface GatewayOptions {
  /** Port to listen on; 0 or absent picks a free one. */
  port?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** The route table (default: allRoutes(), the same table the stack deploys). */
  routes?: RouteDefinition[];
  /** No per-request log line. */
  quiet?: boolean;
  /** Where log lines go (default: stdout, as the logger writes them). */
  log?: (line: string) => void;
  /** Node's headersTimeout / requestTimeout in ms (defaults 60 s / 300 s); tests set them short. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * Local-only servers on the API's origin, by path prefix (e.g. `/_local/stripe`: the Stripe
   * emulator; `/_local`: the developer console). The longest matching prefix serves a path
   * (localMountFor). Every path under `/_local/` is answered here and never reaches a function;
   * one that no mount serves is the gateway's JSON 404. The deployed stack has no such paths.
   */
  localMounts?: Record<string, LocalMount>;
  /**
   * Called with every answer the gateway writes for the API (not for `/_local/` paths, and not
   * for requests Node's HTTP parser refused), as written. The HTTP tests check each against
   * docs/openapi.json (test/support/contract.ts). Must not throw.
   */
  onAnswer?: (answer: GatewayAnswerRecord) => void;
}

/** One answer of the gateway, for `onAnswer`. */
export interface GatewayAnswerRecord {
  method: string;
  /** The path as received, without the query string. */
  path: string;
  /**
   * `route`: a route's function answered (or the gateway for it: a failed or timed-out
   * handler); `unrouted`: no route, the gateway's 404; `gateway`: refused before any route
   * (URL or headers over API Gateway's quotas, no Host, a method API Gateway does not serve,
   * a body over 10 MB).
   */
  stage: 'route' | 'unrouted' | 'gateway';
  /** The name of the route that answered (stage `route`). */
  route?: string;
  status: number;
  /** Response headers as written, lower-case names. */
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

/** A local-only handler mounted under `/_local/`; `path` is below the mount prefix. */
export type LocalMount = (request: IncomingMessage, response: ServerResponse, path: string, rawQuery: string) => Promise<void>;

/** The prefix of the local runtime's own paths, which the deployed stack never has. */
export const localPathPrefix = '/_local';

/**
 * The mount that serves a path: the longest prefix that is the path itself or a whole leading
 * segment run of it (`/_local/stripe/v1/...` goes to `/_local/stripe`, not to `/_local`, the
 * developer console, whatever order the mounts were given in); undefined when none is.
 */
export const localMountFor = (mounts: string[], path: string): string | undefined =>
  mounts
    .filter((mount) => path === mount || path.startsWith(mount.endsWith('/') ? mount : `${mount}/`))
    .sort((a, b) => b.length - a.length)[0];

/** A running local API gateway. */
export interface Gateway {
  /** e.g. `http://127.0.0.1:3000` (no trailing slash). */
  baseUrl: string;
  port: number;
  stop(): Promise<void>;
}

/** A fallback row: ANY on a path ending in a greedy segment (served by fallbackRouteFor's rule). */
const isFallbackRow = (route: RouteDefinition): boolean => route.method === 'ANY' && /\{[^/]+\+\}\/?$/.test(route.path);

/** A path segment decoded, or as sent when its percent-encoding is malformed. */
const decodedOrRaw = (segment: string): string => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
};

/**
 * The route and API Gateway resource a request reaches, or undefined when none does. A path
 * that no route takes, or whose percent-encoding is malformed (`%FF`, `%C0%AE`, `%ED%A0%80`:
 * no route can take it), reaches the fallback of its longest prefix (fallbackRouteFor), as in
 * the stack: `/developer/api/%FF/` and `/developer/api/` itself are authenticated by the
 * developer fallback, the root `/` goes to the default fallback (ANY on the root resource).
 */
export const resolveRoute = (
  routes: RouteDefinition[],
  method: string,
  path: string,
): { route: RouteDefinition; match: ResourceMatch } | undefined => {
  let found: ReturnType<typeof matchRoute>;
  try {
    found = matchRoute(routes.filter((route) => !isFallbackRow(route)), method, path);
  } catch (error) {
    if (!(error instanceof URIError)) throw error;
  }
  if (found) return { route: found.route, match: { resource: found.route.path, pathParameters: found.pathParameters } };
  const fallback = fallbackRouteFor(routes, path);
  if (!fallback) return undefined;
  const parts = fallback.path.split('/').filter((segment) => segment !== '');
  const prefix = parts.slice(0, -1);
  const rest = path.split('/').filter((segment) => segment !== '').slice(prefix.length);
  if (rest.length === 0) return { route: fallback, match: { resource: `/${prefix.join('/')}`, pathParameters: null } };
  const name = parts.at(-1)!.slice(1, -2);
  return { route: fallback, match: { resource: fallback.path, pathParameters: { [name]: rest.map(decodedOrRaw).join('/') } } };
};

const jsonError = (status: number, detail: string, code: string, headers: Record<string, string> = {}): APIGatewayProxyResult => ({
  statusCode: status,
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify({ detail, code }),
});

const guardResult = (answer: GuardAnswer): APIGatewayProxyResult => jsonError(answer.status, answer.detail, answer.code, answer.headers);

class PayloadTooLarge extends Error {}
/** The client went away before its request was complete: there is nobody to answer. */
class ClientGone extends Error {}

/**
 * Reads the body, up to maxBodyBytes. Over it (declared or as sent) it rejects with
 * PayloadTooLarge at once and discards the rest of the body as it arrives.
 */
const readBody = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) {
      reject(new PayloadTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBodyBytes) {
        refused = true;
        chunks.length = 0;
        reject(new PayloadTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    let complete = false;
    request.on('end', () => {
      complete = true;
      resolve(Buffer.concat(chunks));
    });
    request.on('error', () => reject(new ClientGone()));
    request.on('close', () => {
      if (!complete) reject(new ClientGone());
    });
  });

/** Whether a handler's return value is a proxy integration response API Gateway accepts. */
const isProxyResult = (value: unknown): value is APIGatewayProxyResult => {
  if (typeof value !== 'object' || value === null) return false;
  const result = value as Partial<APIGatewayProxyResult>;
  const status = Number(result.statusCode);
  return (
    Number.isInteger(status) && status >= 100 && status <= 599 &&
    (result.body === undefined || result.body === null || typeof result.body === 'string')
  );
};

/**
 * Writes a proxy integration response: status, headers and multiValueHeaders (multi-value
 * wins for a name in both, as in API Gateway), and the body, base64-decoded when the
 * handler says isBase64Encoded. JSON is the content type when the handler sets none.
 */
const writeResult = (response: ServerResponse, result: APIGatewayProxyResult, requestId: string, close = false): Buffer => {
  const headers = new Map<string, { name: string; values: string[] }>();
  for (const [name, value] of Object.entries(result.headers ?? {})) {
    headers.set(name.toLowerCase(), { name, values: [String(value)] });
  }
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) {
    headers.set(name.toLowerCase(), { name, values: values.map(String) });
  }
  for (const ignored of ['content-length', 'transfer-encoding', 'connection']) headers.delete(ignored);
  if (!headers.has('content-type')) headers.set('content-type', { name: 'Content-Type', values: ['application/json'] });
  headers.set('x-amzn-requestid', { name: 'x-amzn-RequestId', values: [requestId] });
  // The function's answer carries it already (shared/observability/http-invocation.ts); the
  // gateway's own answers (404 of an unrouted path, 413, 502, the guards) get it here.
  if (!headers.has('x-request-id')) headers.set('x-request-id', { name: 'X-Request-Id', values: [requestId] });
  const rawBody = result.body ?? '';
  const body = result.isBase64Encoded ? Buffer.from(rawBody, 'base64') : Buffer.from(rawBody, 'utf8');
  for (const { name, values } of headers.values()) response.setHeader(name, values.length === 1 ? values[0]! : values);
  response.setHeader('Content-Length', body.length);
  if (close) closeAfter(response);
  response.statusCode = Number(result.statusCode);
  response.end(body);
  return body;
};

/**
 * Sends `Connection: close` and, once the answer is written, closes the connection with a
 * lingering close (gateway-guards.ts) instead of Node's immediate destroy, so a client still
 * sending a refused body receives the whole answer rather than a connection reset.
 */
const closeAfter = (response: ServerResponse): void => {
  response.setHeader('Connection', 'close');
  const socket = response.socket as (ServerResponse['socket'] & { destroySoon?: () => void }) | null;
  if (socket) socket.destroySoon = () => lingeringClose(socket);
};

const logError = (message: string, fields: Record<string, unknown>, error: unknown): void => {
  logger.error(message, { component: 'local-gateway', ...fields, error: error instanceof Error ? error : String(error) });
};

/**
 * Starts the local API gateway: a node:http server that serves every request the way the
 * deployed REST API does. Each request is matched against the route table (the fallbacks
 * included, so every path reaches a handler), turned into the API Gateway proxy event
 * (payload 1.0), and handed to the route's handler module, imported once and invoked in
 * this process with a Lambda-like context. Bodies over 10 MB are refused with 413; a handler
 * that throws, times out or returns a malformed result is answered with a JSON 502.
 */
export const startGateway = async (options: GatewayOptions = {}): Promise<Gateway> => {
  const routes = options.routes ?? allRoutes();
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? ((line: string) => logOutput.write(line, 'INFO'));
  let port = 0;

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const started = Date.now();
    const requestId = randomUUID();
    const method = (request.method ?? 'GET').toUpperCase();
    const url = request.url ?? '/';
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    const rawQuery = queryAt === -1 ? '' : url.slice(queryAt + 1);
    if (path === localPathPrefix || path.startsWith(`${localPathPrefix}/`)) {
      await serveLocal(request, response, path, rawQuery, started);
      return;
    }
    const resolved = resolveRoute(routes, method, path);
    let result: APIGatewayProxyResult;
    let close = false;
    let stage: GatewayAnswerRecord['stage'] = 'gateway';
    const refusal = headRefusal(request);
    try {
      if (refusal) {
        // Over API Gateway's URL or header quota, or no Host: refused before the body is read.
        result = guardResult(refusal);
        close = true;
      } else if (!(apiGatewayMethods as readonly string[]).includes(method)) {
        result = guardResult(unsupportedMethod(method));
      } else if (!resolved) {
        stage = 'unrouted';
        await readBody(request);
        result = jsonError(404, 'Not found.', 'not_found');
      } else {
        stage = 'route';
        const body = await readBody(request);
        const event = buildApiGatewayEvent(
          resolved.match,
          {
            method,
            path,
            rawQuery,
            rawHeaders: request.rawHeaders,
            body,
            sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
            localPort: port,
            protocol: `HTTP/${request.httpVersion}`,
          },
          { requestId, now: started },
        );
        const fn = { name: resolved.route.name, timeoutSeconds: resolved.route.timeoutSeconds, memoryMb: resolved.route.memoryMb };
        const context = lambdaContext(fn);
        try {
          const handler = await loadHandler(resolved.route.handler);
          const timeoutMs = Math.min(fn.timeoutSeconds ?? 10, integrationTimeoutSeconds) * 1000;
          const returned = await invokeHandler(handler, event, context, timeoutMs);
          if (isProxyResult(returned)) {
            result = returned;
          } else {
            logError('malformed Lambda proxy response', { correlation_id: requestId, route: resolved.route.name }, JSON.stringify(returned));
            result = jsonError(502, 'Internal server error.', 'internal_error');
          }
        } catch (error) {
          logError('handler failed', { correlation_id: requestId, function_request_id: context.awsRequestId, route: resolved.route.name }, error);
          result = jsonError(502, 'Internal server error.', 'internal_error');
        }
      }
    } catch (error) {
      if (!(error instanceof PayloadTooLarge)) throw error;
      result = jsonError(413, `The request body exceeds the maximum of ${maxBodyBytes} bytes.`, 'payload_too_large');
      close = true;
      stage = 'gateway';
    }
    const written = writeResult(response, result, requestId, close);
    if (options.onAnswer) {
      try {
        options.onAnswer({
          method,
          path,
          stage,
          ...(stage === 'route' && resolved ? { route: resolved.route.name } : {}),
          status: response.statusCode,
          headers: response.getHeaders(),
          body: written,
        });
      } catch (error) {
        logError('onAnswer failed', { requestId }, error);
      }
    }
    if (!options.quiet) {
      log(
        formatLine('INFO', 'request', {
          component: 'local-gateway',
          correlation_id: requestId,
          method,
          path,
          route: resolved?.route.name ?? null,
          status: Number(result.statusCode),
          duration_ms: Date.now() - started,
        }),
      );
    }
  };

  const serveLocal = async (request: IncomingMessage, response: ServerResponse, path: string, rawQuery: string, started: number) => {
    const prefix = localMountFor(Object.keys(options.localMounts ?? {}), path);
    if (prefix) await options.localMounts![prefix]!(request, response, path.slice(prefix.length) || '/', rawQuery);
    else {
      await readBody(request);
      writeResult(response, jsonError(404, 'Not found.', 'not_found'), randomUUID());
    }
    if (!options.quiet) {
      log(
        formatLine('INFO', 'request', {
          component: 'local-gateway',
          method: request.method,
          path,
          route: prefix ?? null,
          status: response.statusCode,
          duration_ms: Date.now() - started,
        }),
      );
    }
  };

  const server: Server = createServer(
    {
      maxHeaderSize: parserMaxHeaderSize,
      // A missing Host header is answered by headRefusal, in JSON.
      requireHostHeader: false,
      ...(options.headersTimeoutMs === undefined ? {} : { headersTimeout: options.headersTimeoutMs }),
      ...(options.requestTimeoutMs === undefined ? {} : { requestTimeout: options.requestTimeoutMs }),
      ...(options.headersTimeoutMs === undefined ? {} : { connectionsCheckingInterval: Math.max(50, Math.floor(options.headersTimeoutMs / 4)) }),
    },
    (request, response) => {
      serve(request, response).catch((error: unknown) => {
        if (error instanceof ClientGone) {
          response.destroy();
          return;
        }
        logError('gateway failed', { url: request.url }, error);
        if (!response.headersSent) writeResult(response, jsonError(502, 'Internal server error.', 'internal_error'), randomUUID());
        else response.destroy();
      });
    },
  );
  // Malformed requests, heads over the parser's limit, slow clients: JSON, not Node's empty answer.
  server.on('clientError', answerClientError);
  // CONNECT: Node closes the socket unanswered when nobody listens; API Gateway does not serve it.
  server.on('connect', (request: IncomingMessage, socket) => answerOnSocket(socket, unsupportedMethod(request.method ?? 'CONNECT')));
  // An Expect other than 100-continue: JSON 417 instead of Node's empty one; the body is not read.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
    writeResult(response, guardResult(expectationFailed(request.headers.expect)), randomUUID(), true),
  );
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    stop: () => closeServer(server),
  };
};

/** Closes an HTTP server, ending idle keep-alive connections so close does not hang. */
export const closeServer = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 2000).unref();
  });
