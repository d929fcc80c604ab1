import { exchange, testResponse, type TestResponse } from '../../support/request';
import type { Caller } from './seed';

export type { TestResponse };

/** One Area A request with both factors; `body` is sent as JSON (a string as is). */
export const call = async (baseUrl: string, caller: Caller, method: string, path: string, body?: unknown): Promise<TestResponse> =>
  testResponse(
    await exchange(baseUrl, path, {
      method,
      headers: { Authorization: `Bearer ${caller.token}`, 'X-Customer-API-Key': caller.apiKey, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    }),
  );
