/**
 * A raw HTTP/1.1 client over a TCP socket, so that the harness can send what node:http and
 * fetch refuse to (lower-case or unknown methods, control characters, CONNECT, other
 * versions, conflicting framing) and see exactly what the server answers, an empty answer
 * or a closed connection included. One connection per request (`Connection: close`).
 */
import { connect } from 'node:net';
import type { FuzzRequest } from './fuzz-request';

/** The server's answer, as read from the socket. */
export interface WireAnswer {
  status: number;
  /** Header lines, names lower-cased. */
  headers: Array<[string, string]>;
  body: Buffer;
}

/** An answer, or why there is none. */
export interface WireOutcome {
  answer?: WireAnswer;
  /** e.g. `connection closed without an answer`, `no answer within 40000 ms`. */
  error?: string;
  durationMs: number;
}

/** The request's bytes: request line, Host (unless noHost), the headers, Content-Length, Connection: close, body. */
export const requestBytes = (request: FuzzRequest, host: string): Buffer => {
  const lines = [`${request.method} ${request.target} ${request.version ?? 'HTTP/1.1'}`];
  if (!request.noHost) lines.push(`Host: ${host}`);
  for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
  const framed = request.headers.some(([name]) => /^(content-length|transfer-encoding)$/i.test(name));
  if (request.body && !framed) lines.push(`Content-Length: ${request.body.length}`);
  lines.push('Connection: close');
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'utf8'), request.body ?? Buffer.alloc(0)]);
};

/** Parses one complete answer from `data`; undefined while it is incomplete. 1xx answers are skipped. */
const parseAnswer = (data: Buffer, method: string, closed: boolean): WireAnswer | undefined => {
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end === -1) return undefined;
    const [statusLine, ...headerLines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(statusLine ?? '')?.[1] ?? NaN);
    const headers = headerLines.map((line): [string, string] => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    });
    const body = rest.subarray(end + 4);
    if (status >= 100 && status < 200) {
      rest = body;
      continue;
    }
    const header = (name: string) => headers.find(([candidate]) => candidate === name)?.[1];
    if (method.toUpperCase() === 'HEAD' || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
    if (/chunked/i.test(header('transfer-encoding') ?? '')) {
      const chunks: Buffer[] = [];
      let at = 0;
      for (;;) {
        const lineEnd = body.indexOf('\r\n', at);
        if (lineEnd === -1) return closed ? { status, headers, body: Buffer.concat(chunks) } : undefined;
        const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
        if (size === 0) return { status, headers, body: Buffer.concat(chunks) };
        if (body.length < lineEnd + 2 + size + 2) return closed ? { status, headers, body: Buffer.concat(chunks) } : undefined;
        chunks.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
      }
    }
    const length = header('content-length');
    if (length !== undefined) {
      const size = Number(length);
      if (body.length >= size) return { status, headers, body: body.subarray(0, size) };
      return closed ? { status, headers, body } : undefined;
    }
    return closed ? { status, headers, body } : undefined;
  }
};

/** Sends one request to `baseUrl` (http only) and reads one answer, within `timeoutMs`. */
export const sendRaw = (baseUrl: string, request: FuzzRequest, timeoutMs: number): Promise<WireOutcome> =>
  new Promise((resolve) => {
    const url = new URL(baseUrl);
    const started = Date.now();
    const socket = connect({ host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(url.port || 80) });
    const received: Buffer[] = [];
    let finished = false;
    let writeError: string | undefined;
    const finish = (outcome: Omit<WireOutcome, 'durationMs'>) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...outcome, durationMs: Date.now() - started });
    };
    const timer = setTimeout(() => finish({ error: `no answer within ${timeoutMs} ms` }), timeoutMs);
    const settle = (closed: boolean) => {
      const answer = parseAnswer(Buffer.concat(received), request.method, closed);
      if (answer && !Number.isNaN(answer.status)) finish({ answer });
      else if (closed) {
        const data = Buffer.concat(received);
        finish({
          error: data.length === 0
            ? `connection closed without an answer${writeError ? ` (${writeError})` : ''}`
            : `unparseable answer: ${JSON.stringify(data.subarray(0, 200).toString('latin1'))}`,
        });
      }
    };
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk);
      settle(false);
    });
    socket.on('end', () => settle(true));
    socket.on('close', () => settle(true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      writeError = error.code ?? error.message;
      if (error.code === 'ECONNREFUSED') finish({ error: `connection refused (${url.host})` });
    });
    socket.on('connect', () => socket.write(requestBytes(request, url.host)));
  });
