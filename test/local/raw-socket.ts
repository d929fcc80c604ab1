import { connect } from 'node:net';

/** What a raw exchange received: the parsed answer, or the socket error that ended it. */
export interface RawExchange {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The socket error (e.g. ECONNRESET), when the connection failed. */
  error?: string;
}

/**
 * Sends bytes on a fresh TCP connection, exactly as given (so malformed HTTP can be sent),
 * optionally followed by a body written in chunks with backpressure, and collects everything
 * the server sends until it closes the connection. Parses one HTTP/1.1 answer from it.
 */
export const rawExchange = (
  port: number,
  head: string,
  options: { body?: Buffer; chunked?: boolean; timeoutMs?: number; /** false: keep our side open (a slow client). */ end?: boolean } = {},
): Promise<RawExchange> =>
  new Promise((resolve) => {
    // Half-open allowed: like a client that sends its whole request even after the answer came.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let error: string | undefined;
    const timer = setTimeout(() => {
      error = 'timeout';
      socket.destroy();
    }, options.timeoutMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A slow client that never ended its side closes once the server has.
    socket.on('end', () => options.end === false && socket.end());
    socket.on('error', (failure: NodeJS.ErrnoException) => (error ??= failure.code ?? failure.message));
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = (split === -1 ? text : text.slice(0, split)).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0),
        headers,
        body: split === -1 ? '' : Buffer.from(text.slice(split + 4), 'latin1').toString('utf8'),
        ...(error ? { error } : {}),
      });
    });
    const writeBody = async () => {
      socket.write(head);
      const body = options.body ?? Buffer.alloc(0);
      const size = 256 * 1024;
      for (let offset = 0; offset < body.length && !socket.destroyed; offset += size) {
        const piece = body.subarray(offset, offset + size);
        const framed = options.chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
        if (!socket.write(framed)) await new Promise((drained) => socket.once('drain', drained));
      }
      if (options.chunked && !socket.destroyed) socket.write('0\r\n\r\n');
      if (options.end !== false && !socket.destroyed) socket.end();
    };
    socket.once('connect', () => void writeBody().catch(() => undefined));
  });
