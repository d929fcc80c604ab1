import { exchange, parsedBody } from '../../support/request';
import { keyOf, tokenOf } from './seed';

/** An answer as the actions tests assert it: status, the headers that matter (lower-case names), the JSON body. */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** The headers the tests look at: content type, Allow, Idempotent-Replayed, X-RateLimit-*. */
const relevant = /^(content-type|allow|idempotent-replayed|x-ratelimit-.*)$/;

/** A caller of the seed: a user's token and a key (by label). */
export interface Caller {
  user: string;
  key: string;
}

/**
 * Sends one Area A request as `caller` (test/support/request.ts: X-Request-Id checked), with a
 * JSON body when one is given (a string is sent as it is), and returns the answer.
 */
export const call = async (
  baseUrl: string,
  caller: Caller,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> => {
  const answer = await exchange(baseUrl, path, {
    method,
    headers: {
      Authorization: `Bearer ${tokenOf(caller.user)}`,
      'X-Customer-API-Key': keyOf(caller.key),
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return {
    status: answer.status,
    headers: Object.fromEntries(Object.entries(answer.headers).filter(([name]) => relevant.test(name))),
    body: parsedBody(answer.rawBody, answer.rawBody),
  };
};
