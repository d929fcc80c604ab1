import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/errors/api-error';
import { addResponseHeaders, type HttpMiddleware } from '../../shared/http/envelope';
import { httpRoute } from '../../shared/http/route';
import { ok } from '../../shared/http/responses';
import { logLinesOf } from '../support/log-lines';

/**
 * The shared chain's error answers (shared/http/envelope.ts: @middy/http-error-handler, then
 * the JSON envelope after it) and its body parsing (shared/http/json-body.ts), as whole
 * responses, the way Middy's own packages are tested.
 */

const context = { awsRequestId: 'lambda-request-1', functionName: 'envelope-test' } as Context;

const event = (body: string | null = null, options: { headers?: Record<string, string>; base64?: boolean } = {}) =>
  ({
    httpMethod: 'POST',
    path: '/test',
    resource: '/test',
    headers: options.headers ?? { 'Content-Type': 'application/json' },
    body,
    isBase64Encoded: options.base64 ?? false,
    requestContext: { requestId: 'gateway-request-1' },
  }) as unknown as APIGatewayProxyEvent;

/** A guard that adds one header to whatever the request ends with, as the rate limit does. */
const taggingGuard: HttpMiddleware = { before: async (request) => addResponseHeaders(request, { 'X-RateLimit-Limit': '10' }) };

const route = (inner: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>, json = false) =>
  httpRoute({ json, guards: [taggingGuard] }, (parsed) => inner(parsed));

const answer = (statusCode: number, body: unknown, headers: Record<string, string> = {}) => ({
  statusCode,
  headers: { 'X-RateLimit-Limit': '10', ...headers, 'Content-Type': 'application/json', 'X-Request-Id': 'gateway-request-1' },
  body: JSON.stringify(body),
});

const invalidJson = answer(400, { detail: 'The request body is not valid JSON.', code: 'invalid_json' });

describe('error answers', () => {
  it('answers an ApiError as {detail, code} JSON with its extra fields and headers, and the added headers', async () => {
    const handler = route(async () => {
      throw new ApiError(429, 'rate_limited', 'Too many requests.', { retry_after_seconds: 3 }, { 'Retry-After': '3' });
    });
    expect(await handler(event(), context)).toEqual(
      answer(429, { detail: 'Too many requests.', code: 'rate_limited', retry_after_seconds: 3 }, { 'Retry-After': '3' }),
    );
  });

  it('answers a 5xx ApiError as itself (502 stripe_error), without logging it', async () => {
    const handler = route(async () => {
      throw new ApiError(502, 'stripe_error', 'The payment processor could not create the payment.');
    });
    const lines = await logLinesOf(async () =>
      expect(await handler(event(), context)).toEqual(
        answer(502, { detail: 'The payment processor could not create the payment.', code: 'stripe_error' }),
      ),
    );
    expect(lines.filter((line) => line.level === 'ERROR')).toEqual([]);
  });

  it('answers an unknown error with a generic 500 internal_error that leaks nothing, and logs it once with the request ids', async () => {
    const handler = route(async () => {
      throw Object.assign(new Error('secret table name leaked'), { statusCode: 404 });
    });
    const lines = await logLinesOf(async () =>
      expect(await handler(event(), context)).toEqual(answer(500, { detail: 'An internal error occurred.', code: 'internal_error' })),
    );
    const errors = lines.filter((line) => line.level === 'ERROR');
    expect(errors.map(({ message, function_request_id, correlation_id, error }) => ({
      message, function_request_id, correlation_id, error: { ...(error as object), stack: undefined },
    }))).toEqual([
      {
        message: 'unhandled error',
        function_request_id: 'lambda-request-1',
        correlation_id: 'gateway-request-1',
        error: { name: 'Error', message: 'secret table name leaked', stack: undefined },
      },
    ]);
  });

  it('answers a thrown value that is not an Error with the generic 500', async () => {
    const handler = route(async () => {
      throw 'a string';
    });
    const lines = await logLinesOf(async () =>
      expect(await handler(event(), context)).toEqual(answer(500, { detail: 'An internal error occurred.', code: 'internal_error' })),
    );
    expect(lines.filter((line) => line.level === 'ERROR').map((line) => [line.message, line.error])).toEqual([['unhandled error', 'a string']]);
  });

  it('gives a successful answer the JSON content type and the added headers', async () => {
    const handler = route(async () => ok(200, { fine: true }));
    expect(await handler(event(), context)).toEqual(answer(200, { fine: true }));
  });
});

describe('JSON bodies', () => {
  const echo = route(async (parsed) => ok(200, { body: parsed.body as unknown }), true);

  it('parses a JSON body, also base64-encoded, also without or with another Content-Type', async () => {
    expect(await echo(event('{"a":[1,"é"]}'), context)).toEqual(answer(200, { body: { a: [1, 'é'] } }));
    expect(await echo(event(Buffer.from('{"a":2}').toString('base64'), { base64: true }), context)).toEqual(answer(200, { body: { a: 2 } }));
    expect(await echo(event('{"a":3}', { headers: {} }), context)).toEqual(answer(200, { body: { a: 3 } }));
    expect(await echo(event('{"a":4}', { headers: { 'content-type': 'text/plain' } }), context)).toEqual(answer(200, { body: { a: 4 } }));
  });

  it('answers 400 invalid_json for a missing, empty or malformed body', async () => {
    for (const body of [null, '', '{"a":', 'undefined', '{"a":1}}']) {
      expect(await echo(event(body), context)).toEqual(invalidJson);
    }
    expect(await echo(event('not base64 JSON', { base64: true }), context)).toEqual(invalidJson);
  });

  it('keeps a member named __proto__ as data and accepts a body nested 200,000 levels deep', async () => {
    expect(await echo(event('{"__proto__":{"polluted":true}}'), context)).toEqual(answer(200, { body: JSON.parse('{"__proto__":{"polluted":true}}') }));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // JSON.parse without a reviver is iterative; @middy/http-json-body-parser's reviver (its
    // __proto__ guard) recurses and refused bodies nested deeper than about 2,300 levels.
    const received = route(async (parsed) => ok(200, { array: Array.isArray((parsed.body as unknown as { deep: unknown }).deep) }), true);
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(await received(event(`{"deep":${deep}}`), context)).toEqual(answer(200, { array: true }));
  });
});
