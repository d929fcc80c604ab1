import type http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

/**
 * node:http, for `http://` URLs only (the local SMS simulator and test servers), taken from
 * Node's built-ins when first needed rather than imported: as an ES module import, node:http
 * makes Node build its module facade, which reads every export, among them the lazy
 * `WebSocket`, `CloseEvent` and `MessageEvent` that load Node's bundled undici, about 100 M
 * instructions at every cold start of a function that bundles this module (docs/benchmarks.md).
 */
const plainHttp = (): typeof http => process.getBuiltinModule('node:http');

/** One outbound HTTP(S) POST with hard limits. */
export interface OutboundPost {
  url: URL;
  headers: Record<string, string>;
  body: string;
  /** Until the connection is up (TCP, and TLS for HTTPS), host name resolution included. */
  connectTimeoutMs: number;
  /** Until the whole response has been read. */
  totalTimeoutMs: number;
  /** Response bytes kept; the rest is discarded and the connection closed. */
  maxResponseBytes: number;
  /** Host name resolution (e.g. one that refuses non-public addresses). */
  lookup?: LookupFunction;
  /** Trusted CA certificates for HTTPS (default: Node's). */
  ca?: string[];
  /**
   * A connection pool to reuse connections from (e.g. Node's keep-alive global agent);
   * default none: a fresh connection per call.
   */
  agent?: http.Agent;
}

/** The response of an outbound POST (redirects are never followed: a 3xx is returned as is). */
export interface OutboundResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** True when the body was longer than maxResponseBytes and was cut. */
  truncated: boolean;
}

/** Why an outbound POST got no response. */
export type OutboundFailure = 'connect_timeout' | 'timeout' | 'connection' | 'refused_address';

/** An outbound POST that got no (complete) response. */
export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

const failureOf = (error: unknown): OutboundError => {
  if (error instanceof OutboundError) return error;
  const code = (error as { code?: string })?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ERR_CALLBACK_ADDRESS_REFUSED') return new OutboundError('refused_address', message, error);
  return new OutboundError('connection', code ? `${code}: ${message}` : message, error);
};

/**
 * POSTs a body over node:http or node:https with a connect timeout, a total timeout and a cap
 * on the response body kept, on a fresh connection unless an agent is given (no proxy, no
 * redirects).
 * Resolves with any HTTP response, 4xx/5xx and 3xx included; rejects with OutboundError
 * when there is no response.
 */
export const outboundPost = (request: OutboundPost): Promise<OutboundResponse> =>
  new Promise<OutboundResponse>((resolve, reject) => {
    const { url } = request;
    const secure = url.protocol === 'https:';
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      timers.forEach(clearTimeout);
      outcome();
    };
    const body = Buffer.from(request.body, 'utf8');
    const options: https.RequestOptions = {
      protocol: url.protocol,
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(body.length) },
      agent: request.agent ?? false,
      ...(request.lookup ? { lookup: request.lookup } : {}),
      ...(secure && request.ca ? { ca: request.ca } : {}),
    };
    const outgoing = (secure ? https : plainHttp()).request(options, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (truncated: boolean) =>
        finish(() =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), truncated }),
        );
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = request.maxResponseBytes - size;
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, Math.max(room, 0)));
          done(true);
          response.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.length;
      });
      response.on('end', () => done(false));
      response.on('error', (error) => finish(() => reject(failureOf(error))));
    });
    const connectTimer = setTimeout(() => {
      outgoing.destroy(new OutboundError('connect_timeout', `no connection within ${request.connectTimeoutMs} ms`));
    }, request.connectTimeoutMs);
    timers.push(
      connectTimer,
      setTimeout(() => {
        outgoing.destroy(new OutboundError('timeout', `no complete response within ${request.totalTimeoutMs} ms`));
      }, request.totalTimeoutMs),
    );
    outgoing.on('socket', (socket) => {
      // A pooled connection that is reused is up already.
      if (outgoing.reusedSocket) clearTimeout(connectTimer);
      else socket.once(secure ? 'secureConnect' : 'connect', () => clearTimeout(connectTimer));
    });
    outgoing.on('error', (error) => finish(() => reject(failureOf(error))));
    outgoing.end(body);
  });
