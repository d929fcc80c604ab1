/**
 * Header sets for the fuzz generator: the credentials of each area, good (so that requests
 * reach the handlers) or bad in every way the spec names and some it does not; content
 * types; and odd extra headers.
 */
import type { FuzzContext } from './context';
import { oddString } from './odd-values';
import type { Rng } from './prng';

/** Header lines, in order. */
export type HeaderLines = Array<[string, string]>;

/**
 * A header value that keeps the request's framing: no CR, LF or NUL (those would make it
 * another request). Other control characters stay: a server must answer them too.
 */
export const headerSafe = (text: string): string => text.replace(/[\r\n\u0000]/g, '');

/** An odd header value; control characters only sometimes, so most requests reach a handler. */
const oddHeaderValue = (rng: Rng, plausible?: string): string => {
  const value = headerSafe(oddString(rng, plausible)).slice(0, 12_000);
  return rng.chance(0.7) ? value.replace(/[\u0001-\u0008\u000b-\u001f\u007f]/g, '') : value;
};

const apiKeyNames = ['X-Customer-API-Key', 'X-service-API-Key', 'x-customer-api-key', 'X-SERVICE-API-KEY'];

/** Area A credentials: both factors right (mostly), or one of many wrong combinations. */
export const developerAuth = (rng: Rng, context: FuzzContext): HeaderLines => {
  const token = rng.pick(context.developerTokens);
  const good: HeaderLines = [['Authorization', `Bearer ${token}`], [rng.pick(apiKeyNames), context.apiKey]];
  return rng.weighted<() => HeaderLines>([
    [14, () => good],
    [1, () => []],
    [1, () => [good[0]!]],
    [1, () => [good[1]!]],
    [1, () => [['Authorization', `Bearer ${rng.pick(context.refusedTokens)}`], good[1]!]],
    [1, () => [good[0]!, [rng.pick(apiKeyNames), rng.pick(context.refusedApiKeys)]]],
    [2, () => [['Authorization', oddHeaderValue(rng, `Bearer ${token}`)], good[1]!]],
    [2, () => [good[0]!, [rng.pick(apiKeyNames), oddHeaderValue(rng, context.apiKey)]]],
    [1, () => [['Authorization', rng.pick(['Bearer', 'Bearer ', 'bearer ' + token, 'Basic dTpw', `Bearer  ${token}`, `Bearer ${token} `, `Bearer ${token}x`])], good[1]!]],
    [1, () => [good[0]!, ['Authorization', 'Bearer bearer_x_y'], good[1]!]],
    [1, () => [...good, ['X-service-API-Key', rng.pick(context.refusedApiKeys)]]],
    [1, () => [['Authorization', `Bearer bearer_${'a'.repeat(rng.pick([10, 300, 5_000]))}_${'b'.repeat(rng.pick([1, 2_000, 8_000]))}`], good[1]!]],
    [1, () => [good[0]!, [rng.pick(apiKeyNames), `devkey_${'k'.repeat(rng.pick([10, 300, 5_000]))}_${'s'.repeat(rng.pick([1, 2_000, 8_000]))}`]]],
  ])();
};

/** Area B's service token: right (mostly), missing, or wrong. */
export const storefrontAuth = (rng: Rng, context: FuzzContext): HeaderLines =>
  rng.weighted<() => HeaderLines>([
    [8, () => [['Authorization', `Bearer ${context.storefrontToken}`]]],
    [1, () => []],
    [1, () => [['Authorization', oddHeaderValue(rng, `Bearer ${context.storefrontToken}`)]]],
    [1, () => [['Authorization', rng.pick(['Bearer', `bearer ${context.storefrontToken}`, `Bearer ${context.storefrontToken.slice(0, -1)}`, `Basic ${context.storefrontToken}`])]]],
  ])();

/** A Content-Type for a JSON body: right (mostly), absent, or another type. */
export const contentType = (rng: Rng): HeaderLines =>
  rng.weighted<() => HeaderLines>([
    [12, () => [['Content-Type', 'application/json']]],
    [2, () => []],
    [1, () => [['Content-Type', 'application/json; charset=utf-8']]],
    [3, () => [['Content-Type', rng.pick([
      'text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
      'image/png', 'application/json; charset=utf-16', 'APPLICATION/JSON', 'application/vnd.api+json', '', ';', 'application/json, text/html',
    ])]]],
    [1, () => [['Content-Type', oddHeaderValue(rng, 'application/json')]]],
  ])();

/** Zero to two odd extra headers. */
export const extraHeaders = (rng: Rng): HeaderLines => {
  const lines: HeaderLines = [];
  const count = rng.weighted([[6, 0], [3, 1], [1, 2]] as const);
  for (let index = 0; index < count; index += 1) {
    lines.push(
      rng.weighted<() => [string, string]>([
        [2, () => ['Accept', rng.pick(['text/html', 'application/xml', '*/*', 'application/json;q=0', oddHeaderValue(rng)])]],
        [1, () => ['Accept-Encoding', rng.pick(['gzip', 'br', 'identity;q=0', '*;q=0'])]],
        [1, () => ['Content-Encoding', rng.pick(['gzip', 'deflate', 'br', 'x-unknown'])]],
        [1, () => ['X-Forwarded-For', oddHeaderValue(rng, '203.0.113.7')]],
        [1, () => ['X-Amzn-Trace-Id', oddHeaderValue(rng)]],
        [1, () => ['Origin', oddHeaderValue(rng, 'https://shop.example')]],
        [1, () => ['User-Agent', oddHeaderValue(rng, 'fuzz/1.0')]],
        [1, () => ['Expect', rng.pick(['100-continue', 'nonsense', '200-ok'])]],
        [1, () => ['Upgrade', 'websocket']],
        [1, () => [oddString(rng).replace(/[^!#$%&'*+\-.^_`|~0-9A-Za-z]/g, '') || 'X-Empty', oddHeaderValue(rng)]],
        [1, () => ['X-Long', 'v'.repeat(rng.pick([1_000, 8_000, 15_000]))]],
      ])(),
    );
  }
  return lines;
};
