import type { Caller } from './seed';

/** A response reduced to what the tests assert. */
export interface TestResponse {
  status: number;
  contentType: string | null;
  headers: Headers;
  body: unknown;
}

/** One Area A request with both factors; `body` is sent as JSON (a string as is). */
export const call = async (baseUrl: string, caller: Caller, method: string, path: string, body?: unknown): Promise<TestResponse> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${caller.token}`, 'X-Customer-API-Key': caller.apiKey, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: response.status, contentType: response.headers.get('content-type'), headers: response.headers, body: parsed };
};
