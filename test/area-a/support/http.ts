import { exchange, parsedBody } from '../../support/request';

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
 * Sends one request (test/support/request.ts: header names exactly as given, as pairs a name
 * may come more than once; X-Request-Id checked) and returns status, the relevant headers
 * (lower-case names) and the JSON body.
 */
export const send = async (
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> | Array<[string, string]> } = {},
): Promise<HttpAnswer> => {
  const answer = await exchange(baseUrl, path, options);
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => relevant.test(name)));
  return { status: answer.status, headers, body: parsedBody(answer.rawBody, answer.rawBody), rawBody: answer.rawBody };
};

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
