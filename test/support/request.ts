import { request as httpRequest } from 'node:http';

/** One request: method, headers exactly as given (as pairs a name may come twice), a body. */
export interface RequestOptions {
  method?: string;
  headers?: Record<string, string> | Array<[string, string]>;
  /** Sent as is; with no Content-Type given, as `text/plain;charset=UTF-8` (what fetch does). */
  body?: string;
}

/** What came back: the status, every header (lower-case names, repeated ones joined), the body. */
export interface Exchange {
  status: number;
  headers: Record<string, string>;
  rawBody: string;
}

/**
 * The suite's one way to send a request to a local runtime: node:http, header names spelled
 * as given (so their spelling and repetition can be tested). Every answer must carry
 * `X-Request-Id`, the request's id (the gateway's x-amzn-RequestId, which is the event's
 * requestContext.requestId): the call fails otherwise, so every test of the suite checks it.
 * The endpoint helpers of the suites (`send`, `call`, `postSms`, `post`...) shape its answer.
 */
export const exchange = (baseUrl: string, path: string, options: RequestOptions = {}): Promise<Exchange> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, baseUrl);
    const given = Array.isArray(options.headers) ? options.headers : Object.entries(options.headers ?? {});
    const named = (name: string) => given.some(([candidate]) => candidate.toLowerCase() === name);
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const implied: Array<[string, string]> = body
      ? [
          ...(named('content-type') ? [] : [['Content-Type', 'text/plain;charset=UTF-8'] as [string, string]]),
          ...(named('content-length') ? [] : [['Content-Length', String(body.length)] as [string, string]]),
        ]
      : [];
    const rawHeaders = ['Host', url.host, ...[...given, ...implied].flat()];
    const outgoing = httpRequest(url, { method: options.method ?? 'GET', headers: rawHeaders }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const requestId = answer.headers['x-request-id'];
        if (typeof requestId !== 'string' || requestId === '' || requestId !== answer.headers['x-amzn-requestid']) {
          reject(new Error(`X-Request-Id ${String(requestId)} is not the request's id ${String(answer.headers['x-amzn-requestid'])}`));
          return;
        }
        const headers = Object.fromEntries(
          Object.entries(answer.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]),
        );
        resolve({ status: answer.statusCode ?? 0, headers, rawBody: Buffer.concat(chunks).toString('utf8') });
      });
      answer.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });

/** The body as JSON, or `otherwise` when it is not JSON. */
export const parsedBody = (text: string, otherwise: unknown): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return otherwise;
  }
};

/** A fetch-style view of an answer: status, content type, the headers as a Headers, the parsed body (text when not JSON). */
export interface TestResponse {
  status: number;
  contentType: string | null;
  headers: Headers;
  body: unknown;
}

/** The answer as a TestResponse. */
export const testResponse = (answer: Exchange): TestResponse => ({
  status: answer.status,
  contentType: answer.headers['content-type'] ?? null,
  headers: new Headers(answer.headers),
  body: parsedBody(answer.rawBody, answer.rawBody),
});

/**
 * `exchange` in fetch's shape, for tests written against a Response (`.status`, `.headers.get`,
 * `.json()`): `url` whole, `init` as exchange's options. The answer's X-Request-Id is checked
 * as for every other request of the suite.
 */
export const fetchFromRuntime = async (url: string, init: RequestOptions = {}): Promise<Response> => {
  const target = new URL(url);
  const answer = await exchange(target.origin, `${target.pathname}${target.search}`, init);
  const bodyless = answer.status === 204 || answer.status === 304 || answer.rawBody === '';
  return new Response(bodyless ? null : answer.rawBody, { status: answer.status, headers: answer.headers });
};
