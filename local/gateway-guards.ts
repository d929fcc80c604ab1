/**
 * What the local gateway answers by itself, before any route is chosen, so that it is as
 * strict as API Gateway and every answer is JSON `{detail, code}` (docs/local-runtime.md):
 * malformed requests, URLs and headers over API Gateway's limits, methods API Gateway does
 * not serve, CONNECT, and the way such a connection is closed without losing the answer.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { quoteInput } from '../shared/errors/detail-text';

/** API Gateway's quota for the URL of a regional REST API, in characters. */
export const maxUrlLength = 10_240;
/**
 * API Gateway's quota for the request's headers, in bytes (names and values, ": " and line
 * ends not counted). AWS counts the request line in the same sum; the local gateway checks
 * the URL on its own (414 `uri_too_long`) so that a long URL is named as such.
 */
export const maxHeaderBytes = 10_240;
/**
 * Node's parser limit for the request line plus headers. Far above both quotas so the
 * gateway itself sees the request and answers 414 or 431 exactly; a request head over it
 * is cut off by the parser (answered in `answerClientError`).
 */
export const parserMaxHeaderSize = 1024 * 1024;
/** The methods API Gateway's REST API serves (an ANY method means these). */
export const apiGatewayMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** A gateway answer: status, `{detail, code}` and extra headers. */
export interface GuardAnswer {
  status: number;
  code: string;
  detail: string;
  headers?: Record<string, string>;
}

/** 405 for a method API Gateway does not serve (CONNECT, TRACE, PROPFIND, BREW, ...). */
export const unsupportedMethod = (method: string): GuardAnswer => ({
  status: 405,
  code: 'method_not_allowed',
  detail: `Method ${method} is not supported; use ${apiGatewayMethods.join(', ')}.`,
  headers: { Allow: apiGatewayMethods.join(', ') },
});

const uriTooLong: GuardAnswer = {
  status: 414,
  code: 'uri_too_long',
  detail: `The URL exceeds the maximum of ${maxUrlLength} characters.`,
};

const headersTooLarge: GuardAnswer = {
  status: 431,
  code: 'request_header_fields_too_large',
  detail: `The request headers exceed the maximum of ${maxHeaderBytes} bytes.`,
};

const badRequest: GuardAnswer = { status: 400, code: 'bad_request', detail: 'The request is not valid HTTP/1.1.' };

const requestTimeout: GuardAnswer = {
  status: 408,
  code: 'request_timeout',
  detail: 'The request was not received in time.',
};

const missingHost: GuardAnswer = { status: 400, code: 'bad_request', detail: 'An HTTP/1.1 request needs a Host header.' };

/**
 * The answer for a request whose head the gateway refuses before reading the body, or
 * undefined: a URL or headers over API Gateway's quotas (sizes count bytes as received: Node
 * passes header values as latin1, one char per byte), or an HTTP/1.1 request without a Host
 * header (RFC 9112 §3.2; the server is created with `requireHostHeader: false` so that this
 * answer is JSON instead of Node's empty 400).
 */
export const headRefusal = (request: IncomingMessage): GuardAnswer | undefined => {
  if ((request.url ?? '').length > maxUrlLength) return uriTooLong;
  let bytes = 0;
  for (const part of request.rawHeaders) bytes += part.length;
  if (bytes > maxHeaderBytes) return headersTooLarge;
  if (request.httpVersion === '1.1' && request.headers.host === undefined) return missingHost;
  return undefined;
};

/**
 * 417 for an `Expect` header other than `100-continue` (Node would answer an empty 417): the
 * server's `checkExpectation` event.
 */
export const expectationFailed = (expect: string | undefined): GuardAnswer => ({
  status: 417,
  code: 'expectation_failed',
  detail: `Expect: ${quoteInput(expect ?? '')} cannot be met; only 100-continue is supported.`,
});

/** An HTTP/1.1 response with a JSON body, as bytes to write on a raw socket; it closes the connection. */
export const rawJsonResponse = (answer: GuardAnswer): string => {
  const body = JSON.stringify({ detail: answer.detail, code: answer.code });
  const headers = {
    'Content-Type': 'application/json',
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
    'x-amzn-RequestId': randomUUID(),
    ...answer.headers,
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\n${lines.join('')}\r\n${body}`;
};

/** How long a closing connection keeps discarding what the client still sends. */
const lingerIdleMs = 1000;
const lingerMaxMs = 30_000;

/**
 * Closes a connection after its answer without losing the answer: half-closes (FIN after the
 * answer), keeps reading and discarding what the client still sends (the rest of an oversized
 * body), and destroys the socket once the client has closed its side, has sent nothing for a
 * second, or after 30 s. Destroying at once with unread data would send a TCP reset, and the
 * client could lose the answer (as nginx's lingering close avoids).
 */
export const lingeringClose = (socket: Duplex & { bytesRead?: number }): void => {
  if (socket.destroyed) return;
  const started = Date.now();
  let lastRead = socket.bytesRead ?? 0;
  const timer = setInterval(() => {
    const read = socket.bytesRead ?? 0;
    if (read === lastRead || Date.now() - started > lingerMaxMs) socket.destroy();
    lastRead = read;
  }, lingerIdleMs);
  timer.unref();
  socket.once('close', () => clearInterval(timer));
  socket.once('end', () => {
    if (socket.writableFinished) socket.destroy();
    else socket.once('finish', () => socket.destroy());
  });
  if (socket.writable) socket.end();
  socket.resume();
};

/** Writes a raw JSON answer on a socket that has no response in progress, then closes it gracefully. */
export const answerOnSocket = (socket: Duplex, answer: GuardAnswer): void => {
  if (socket.destroyed) return;
  if (socket.writable) socket.write(rawJsonResponse(answer));
  lingeringClose(socket);
};

type ParserError = Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number };

const answeredSockets = new WeakSet<Duplex>();

/**
 * The answer for an error of Node's HTTP parser: 405 for a request line whose method is a
 * well-formed upper-case token API Gateway does not know (BREW); 414 or 431 when the request
 * head is over the parser's limit (414 when, as far as the last packet shows, it is still the
 * request line); 408 when the client was too slow; else 400 `bad_request` (a lower-case
 * method, a control character in a header, a malformed request line or chunked body).
 */
export const clientErrorAnswer = (error: ParserError): GuardAnswer => {
  const packet = error.rawPacket ?? Buffer.alloc(0);
  switch (error.code) {
    case 'HPE_INVALID_METHOD': {
      const method = /^([A-Z][A-Z0-9_-]*) /.exec(packet.subarray(0, 64).toString('latin1'));
      return method ? unsupportedMethod(method[1]!) : badRequest;
    }
    case 'HPE_HEADER_OVERFLOW': {
      const parsed = packet.subarray(0, error.bytesParsed ?? packet.length).toString('latin1');
      return /^[A-Z]+ /.test(parsed) && !parsed.includes('\n') ? uriTooLong : headersTooLarge;
    }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return requestTimeout;
    default:
      return badRequest;
  }
};

/**
 * The server's `clientError` listener: answers a request Node's parser refused with JSON and
 * closes the connection gracefully. Nothing is written when the client is gone or a response
 * is already under way on the socket (it is destroyed then, as Node does). Node calls this
 * again for each later packet of a refused connection; those calls are ignored.
 */
export const answerClientError = (error: ParserError, socket: Duplex): void => {
  if (answeredSockets.has(socket)) return;
  answeredSockets.add(socket);
  const inProgress = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent) {
    socket.destroy();
    return;
  }
  answerOnSocket(socket, clientErrorAnswer(error));
};
