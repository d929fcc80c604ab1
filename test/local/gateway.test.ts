import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFallbackRoute, developerFallbackRoute, type RouteDefinition } from '../../infra/routes';
import { maxBodyBytes, startGateway, type Gateway } from '../../local/gateway';
import { rawRequest } from './http-client';

const testRoute = (name: string, method: RouteDefinition['method'], path: string, handler: string): RouteDefinition => ({
  name,
  method,
  path,
  handler,
  area: 'storefront',
  json: false,
  access: { table: 'none' },
});

const echo = 'test/local/fixtures/echo-handler.ts';
const routes: RouteDefinition[] = [
  testRoute('echo-item', 'GET', '/echo/{id}/items/{item}', echo),
  testRoute('echo-one', 'ANY', '/echo/{id}/', echo),
  testRoute('plain', 'POST', '/plain', echo),
  testRoute('files', 'GET', '/files/{proxy+}', echo),
  testRoute('throws', 'GET', '/throws', 'test/local/fixtures/throwing-handler.ts'),
  testRoute('malformed', 'GET', '/malformed', 'test/local/fixtures/malformed-handler.ts'),
  testRoute('binary', 'GET', '/binary', 'test/local/fixtures/binary-handler.ts'),
  developerFallbackRoute,
  defaultFallbackRoute,
];

type EchoBody = { event: Record<string, any>; context: Record<string, any> };

let gateway: Gateway;

beforeAll(async () => {
  gateway = await startGateway({ routes, quiet: true });
});

afterAll(async () => {
  await gateway.stop();
});

describe('local gateway', () => {
  it('builds the REST API proxy event with path parameters, multi-value query and headers', async () => {
    const response = await rawRequest(`${gateway.baseUrl}/echo/42/items/a%20b?x=1&x=2&y=hello+world&empty`, {
      headers: ['X-Multi', 'one', 'X-Multi', 'two', 'User-Agent', 'vitest-agent'],
    });
    expect(response.status).toBe(200);
    const { event, context } = response.json() as EchoBody;
    expect(event).toMatchObject({
      resource: '/echo/{id}/items/{item}',
      path: '/echo/42/items/a%20b',
      httpMethod: 'GET',
      pathParameters: { id: '42', item: 'a b' },
      queryStringParameters: { x: '2', y: 'hello world', empty: '' },
      multiValueQueryStringParameters: { x: ['1', '2'], y: ['hello world'], empty: [''] },
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
    });
    expect(event.headers['X-Multi']).toBe('two');
    expect(event.multiValueHeaders['X-Multi']).toEqual(['one', 'two']);
    expect(event.headers['User-Agent']).toBe('vitest-agent');
    expect(event.headers['X-Forwarded-For']).toBe('127.0.0.1');
    expect(event.headers['X-Forwarded-Port']).toBe(String(gateway.port));
    expect(event.headers['X-Forwarded-Proto']).toBe('http');
    expect(event.headers['X-Amzn-Trace-Id']).toMatch(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/);
    expect(event.requestContext).toMatchObject({
      accountId: '000000000000',
      stage: 'local',
      resourcePath: '/echo/{id}/items/{item}',
      httpMethod: 'GET',
      path: '/local/echo/42/items/a%20b',
      protocol: 'HTTP/1.1',
      identity: { sourceIp: '127.0.0.1', userAgent: 'vitest-agent' },
    });
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof event.requestContext.requestTimeEpoch).toBe('number');
    expect(event.requestContext.requestTime).toMatch(/^\d\d\/[A-Z][a-z]{2}\/\d{4}:\d\d:\d\d:\d\d \+0000$/);
    expect(context).toMatchObject({ functionName: 'echo-item', memoryLimitInMB: '1024' });
    expect(context.remaining).toBeGreaterThan(0);
    expect(context.remaining).toBeLessThanOrEqual(10_000);
    expect(context.awsRequestId).not.toBe(event.requestContext.requestId);
    expect(response.headers['content-type']).toBe('application/json');
    expect(response.headers['x-echo']).toBe('single');
    expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(response.headers['x-amzn-requestid']).toBe(event.requestContext.requestId);
  });

  it('treats the trailing slash as optional and passes null for absent query and path parameters', async () => {
    for (const path of ['/echo/7', '/echo/7/']) {
      const response = await rawRequest(`${gateway.baseUrl}${path}`, { method: 'DELETE' });
      const { event } = response.json() as EchoBody;
      expect({ status: response.status, resource: event.resource, path: event.path, pathParameters: event.pathParameters }).toEqual({
        status: 200,
        resource: '/echo/{id}/',
        path,
        pathParameters: { id: '7' },
      });
      expect(event.queryStringParameters).toBeNull();
      expect(event.multiValueQueryStringParameters).toBeNull();
    }
    const plain = await rawRequest(`${gateway.baseUrl}/plain`, { method: 'POST' });
    expect((plain.json() as EchoBody).event.pathParameters).toBeNull();
  });

  it('passes a text body as a string and a binary body as base64', async () => {
    const json = await rawRequest(`${gateway.baseUrl}/plain`, {
      method: 'POST',
      headers: ['Content-Type', 'application/json; charset=utf-8'],
      body: '{"message":"héllo"}',
    });
    expect((json.json() as EchoBody).event).toMatchObject({ body: '{"message":"héllo"}', isBase64Encoded: false });
    const bytes = Buffer.from([0, 159, 146, 150, 255]);
    const binary = await rawRequest(`${gateway.baseUrl}/plain`, {
      method: 'POST',
      headers: ['Content-Type', 'application/octet-stream'],
      body: bytes,
    });
    expect((binary.json() as EchoBody).event).toMatchObject({ body: bytes.toString('base64'), isBase64Encoded: true });
  });

  it('passes the rest of the path of a greedy route as the proxy parameter', async () => {
    const response = await rawRequest(`${gateway.baseUrl}/files/a/b%2Fc/d.txt`);
    expect((response.json() as EchoBody).event.pathParameters).toEqual({ proxy: 'a/b/c/d.txt' });
  });

  it('refuses a body over 10 MB with a JSON 413', async () => {
    const response = await rawRequest(`${gateway.baseUrl}/plain`, {
      method: 'POST',
      headers: ['Content-Type', 'application/json'],
      body: Buffer.alloc(maxBodyBytes + 1, 0x20),
    });
    expect({ status: response.status, type: response.headers['content-type'], body: response.json() }).toEqual({
      status: 413,
      type: 'application/json',
      body: { detail: `The request body exceeds the maximum of ${maxBodyBytes} bytes.`, code: 'payload_too_large' },
    });
  });

  it('answers a JSON 502 when a handler throws or returns a malformed result', async () => {
    for (const path of ['/throws', '/malformed']) {
      const response = await rawRequest(`${gateway.baseUrl}${path}`);
      expect({ status: response.status, type: response.headers['content-type'], body: response.json() }).toEqual({
        status: 502,
        type: 'application/json',
        body: { detail: 'Internal server error.', code: 'internal_error' },
      });
    }
  });

  it('decodes a base64-encoded handler response', async () => {
    const response = await rawRequest(`${gateway.baseUrl}/binary`);
    expect(response.status).toBe(201);
    expect([...response.body]).toEqual([0, 1, 2, 255]);
  });

  it('answers JSON 404 for a path with malformed percent-encoding', async () => {
    const response = await rawRequest(`${gateway.baseUrl}/echo/%E0%A4%A/items/x`);
    expect({ status: response.status, type: response.headers['content-type'], body: response.json() }).toEqual({
      status: 404,
      type: 'application/json',
      body: { detail: 'Not found.', code: 'not_found' },
    });
  });

  it('sends the root path to the default fallback with resource /', async () => {
    const withEchoFallback = await startGateway({
      routes: [{ ...defaultFallbackRoute, handler: echo }],
      quiet: true,
    });
    try {
      const response = await rawRequest(`${withEchoFallback.baseUrl}/`);
      const { event } = response.json() as EchoBody;
      expect({ resource: event.resource, path: event.path, pathParameters: event.pathParameters }).toEqual({
        resource: '/',
        path: '/',
        pathParameters: null,
      });
    } finally {
      await withEchoFallback.stop();
    }
  });

  it('answers JSON 404 itself when the route table has no fallback', async () => {
    const bare = await startGateway({ routes: [routes[0]!], quiet: true });
    try {
      const response = await rawRequest(`${bare.baseUrl}/nowhere`);
      expect({ status: response.status, type: response.headers['content-type'], body: response.json() }).toEqual({
        status: 404,
        type: 'application/json',
        body: { detail: 'Not found.', code: 'not_found' },
      });
    } finally {
      await bare.stop();
    }
  });
});
