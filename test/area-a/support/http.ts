import { request } from 'node:http';

/** An HTTP answer as a test sees it. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  rawBody: string;
}

/** The headers the tests look at (lower-case names): content type, Allow, Retry-After, X-RateLimit-*. */
const relevant = /^(content-type|allow|retry-after|x-ratelimit-.*)$/;

/**
 * Sends one request with node:http, header names exactly as given (so their spelling can be
 * tested; as pairs, a name may come more than once), and returns status, the relevant headers (lower-case names) and the JSON body.
 * Every answer must carry `X-Request-Id`, the request's id (the gateway's x-amzn-RequestId,
 * which is the event's requestContext.requestId): the call fails otherwise, so every test
 * of the suite checks it.
 */
export const send = (
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> | Array<[string, string]> } = {},
): Promise<HttpAnswer> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, baseUrl);
    // An array of pairs may name a header more than once.
    const given = Array.isArray(options.headers) ? options.headers : Object.entries(options.headers ?? {});
    const rawHeaders = ['Host', url.host, ...given.flat()];
    const req = request(url, { method: options.method ?? 'GET', headers: rawHeaders }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const rawBody = Buffer.concat(chunks).toString('utf8');
        const requestId = res.headers['x-request-id'];
        if (typeof requestId !== 'string' || requestId === '' || requestId !== res.headers['x-amzn-requestid']) {
          reject(new Error(`X-Request-Id ${String(requestId)} is not the request's id ${String(res.headers['x-amzn-requestid'])}`));
          return;
        }
        const headers = Object.fromEntries(
          Object.entries(res.headers)
            .filter(([name]) => relevant.test(name))
            .map(([name, value]) => [name, String(value)]),
        );
        let body: unknown;
        try {
          body = JSON.parse(rawBody);
        } catch {
          body = rawBody;
        }
        resolve({ status: res.statusCode ?? 0, headers, body, rawBody });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });

/** The six rate-limit headers (lower-case names) with the given remaining counts. */
export const rateLimitHeaders = (remaining: { burst: number; minute: number; hour: number }) => ({
  'x-ratelimit-limit-burst': '10',
  'x-ratelimit-remaining-burst': String(remaining.burst),
  'x-ratelimit-limit-minute': '60',
  'x-ratelimit-remaining-minute': String(remaining.minute),
  'x-ratelimit-limit-hour': '1500',
  'x-ratelimit-remaining-hour': String(remaining.hour),
});

/** A first request's rate-limit headers. */
export const firstRequestHeaders = rateLimitHeaders({ burst: 9, minute: 59, hour: 1499 });

/** The content type of every JSON answer. */
export const json = { 'content-type': 'application/json' };
