import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultFallbackRoute, developerFallbackRoute, type RouteDefinition } from '../../shared/topology/routes';
import { maxBodyBytes, startGateway, type Gateway } from '../../local/gateway';
import { maxHeaderBytes, maxUrlLength } from '../../local/gateway-guards';
import { rawRequest } from './http-client';
import { rawExchange, type RawExchange } from './raw-socket';

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

  it('passes any query and header name through, prototype member names included', async () => {
    const names = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
    const query = names.map((name, index) => `${name}=${index}`).join('&');
    const headers = names.flatMap((name, index) => [name, `h${index}`]);
    const response = await rawRequest(`${gateway.baseUrl}/echo/1/items/2?${query}&__proto__=again`, { headers });
    expect(response.status).toBe(200);
    const { event } = response.json() as EchoBody;
    expect(Object.entries(event.queryStringParameters)).toEqual([
      ['constructor', '0'], ['__proto__', 'again'], ['toString', '2'], ['hasOwnProperty', '3'], ['valueOf', '4'],
    ]);
    expect(Object.entries(event.multiValueQueryStringParameters)).toEqual([
      ['constructor', ['0']], ['__proto__', ['1', 'again']], ['toString', ['2']], ['hasOwnProperty', ['3']], ['valueOf', ['4']],
    ]);
    for (const [index, name] of names.entries()) {
      expect(Object.getOwnPropertyDescriptor(event.headers, name)?.value).toBe(`h${index}`);
      expect(Object.getOwnPropertyDescriptor(event.multiValueHeaders, name)?.value).toEqual([`h${index}`]);
    }
    // The real fallback handlers answer such requests as any other.
    const fallback = await rawRequest(`${gateway.baseUrl}/nowhere/?${query}`, { headers });
    expect({ status: fallback.status, body: fallback.json() }).toEqual({ status: 404, body: { detail: 'Not found.', code: 'not_found' } });
  });

  const jsonAnswer = (exchange: RawExchange) => ({
    status: exchange.status,
    type: exchange.headers['content-type'],
    connection: exchange.headers.connection,
    body: exchange.body === '' ? '' : JSON.parse(exchange.body),
    ...(exchange.error ? { error: exchange.error } : {}),
  });
  const badRequest = {
    status: 400,
    type: 'application/json',
    connection: 'close',
    body: { detail: 'The request is not valid HTTP/1.1.', code: 'bad_request' },
  };

  it('answers requests that are not valid HTTP with a JSON 400 and closes the connection', async () => {
    const malformed = [
      'get /echo/1/ HTTP/1.1\r\nHost: x\r\n\r\n',
      'GET /echo/1/ HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n',
      'GET /echo/1/ HTTP/1.1\r\nHost: x\r\nBad Name: a\r\n\r\n',
      'GET\r\n\r\n',
      'GET /echo/1/ HTTP/9.9\r\nHost: x\r\n\r\n',
      'POST /plain HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ];
    for (const head of malformed) expect({ head, ...jsonAnswer(await rawExchange(gateway.port, head)) }).toEqual({ head, ...badRequest });
  });

  it('answers an HTTP/1.1 request without a Host header with a JSON 400, and serves an HTTP/1.0 one', async () => {
    expect(jsonAnswer(await rawExchange(gateway.port, 'GET /echo/1/ HTTP/1.1\r\n\r\n'))).toEqual({
      ...badRequest,
      body: { detail: 'An HTTP/1.1 request needs a Host header.', code: 'bad_request' },
    });
    expect(jsonAnswer(await rawExchange(gateway.port, 'GET /echo/1/ HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('answers an Expect other than 100-continue with a JSON 417 and closes the connection', async () => {
    const head = 'POST /echo/1/ HTTP/1.1\r\nHost: x\r\nExpect: nonsense\r\nContent-Length: 2\r\n\r\n{}';
    expect(jsonAnswer(await rawExchange(gateway.port, head))).toEqual({
      status: 417,
      type: 'application/json',
      connection: 'close',
      body: { detail: 'Expect: "nonsense" cannot be met; only 100-continue is supported.', code: 'expectation_failed' },
    });
  });

  it('answers a URL over 10240 characters with a JSON 414 and headers over 10240 bytes with a JSON 431', async () => {
    const uriTooLong = {
      status: 414,
      type: 'application/json',
      connection: 'close',
      body: { detail: `The URL exceeds the maximum of ${maxUrlLength} characters.`, code: 'uri_too_long' },
    };
    const headersTooLarge = {
      status: 431,
      type: 'application/json',
      connection: 'close',
      body: { detail: `The request headers exceed the maximum of ${maxHeaderBytes} bytes.`, code: 'request_header_fields_too_large' },
    };
    const atLimit = `/echo/1/?q=${'a'.repeat(maxUrlLength - '/echo/1/?q='.length)}`;
    expect(atLimit).toHaveLength(maxUrlLength);
    const fits = await rawExchange(gateway.port, `GET ${atLimit} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(fits.status).toBe(200);
    for (const url of [`${atLimit}a`, `/echo/1/?q=${'a'.repeat(20_000)}`]) {
      expect(jsonAnswer(await rawExchange(gateway.port, `GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`))).toEqual(uriTooLong);
    }
    // Header names and values count; 'Host' + 'x' are 5 bytes.
    const header = (valueBytes: number) => `GET /echo/1/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(valueBytes)}\r\n\r\n`;
    const room = maxHeaderBytes - 'Hostx'.length - 'X-Big'.length;
    expect((await rawExchange(gateway.port, header(room))).status).toBe(200);
    expect(jsonAnswer(await rawExchange(gateway.port, header(room + 1)))).toEqual(headersTooLarge);
    // Over Node's own parser limit (1 MiB), still JSON.
    expect(jsonAnswer(await rawExchange(gateway.port, header(2 * 1024 * 1024)))).toEqual(headersTooLarge);
    // A POST with a body over the limits is refused before the body is read, and the answer arrives whole.
    const post = await rawExchange(gateway.port, `POST /plain HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\nX-Big: ${'b'.repeat(room)}\r\n\r\n`, {
      body: Buffer.alloc(1_000_000, 0x20),
    });
    expect(jsonAnswer(post)).toEqual(headersTooLarge);
  });

  it('answers methods API Gateway does not serve, CONNECT included, with a JSON 405', async () => {
    const allow = 'GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS';
    for (const [method, target] of [
      ['CONNECT', 'example.com:443'],
      ['CONNECT', '/developer/api/sims/'],
      ['PROPFIND', '/developer/api/sims/'],
      ['TRACE', '/echo/1/'],
      ['BREW', '/developer/api/sims/'],
      ['PURGE', '/nowhere'],
    ] as const) {
      const exchange = await rawExchange(gateway.port, `${method} ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect({ method, allow: exchange.headers.allow, ...jsonAnswer(exchange) }).toEqual({
        method,
        allow,
        status: 405,
        type: 'application/json',
        connection: method === 'CONNECT' || method === 'BREW' ? 'close' : exchange.headers.connection,
        body: { detail: `Method ${method} is not supported; use ${allow}.`, code: 'method_not_allowed' },
      });
    }
  });

  it('answers a slow client with a JSON 408', async () => {
    const strict = await startGateway({ routes, quiet: true, headersTimeoutMs: 400, requestTimeoutMs: 800 });
    try {
      const started = Date.now();
      const exchange = await rawExchange(strict.port, 'GET /echo/1/ HTTP/1.1\r\nHost: x\r\n', { end: false });
      expect(jsonAnswer(exchange)).toEqual({
        status: 408,
        type: 'application/json',
        connection: 'close',
        body: { detail: 'The request was not received in time.', code: 'request_timeout' },
      });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await strict.stop();
    }
  });

  it('sends the whole JSON 413 before closing, every time, for a body just over 10 MB', async () => {
    const payloadTooLarge = {
      status: 413,
      type: 'application/json',
      connection: 'close',
      body: { detail: `The request body exceeds the maximum of ${maxBodyBytes} bytes.`, code: 'payload_too_large' },
    };
    const justOver = Buffer.alloc(maxBodyBytes + 1, 0x20);
    const farOver = Buffer.alloc(maxBodyBytes + 4 * 1024 * 1024, 0x20);
    const post = (length: number | 'chunked') =>
      `POST /plain HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`;
    const answers = [];
    for (let round = 0; round < 8; round += 1) {
      answers.push(jsonAnswer(await rawExchange(gateway.port, post(justOver.length), { body: justOver })));
      answers.push(jsonAnswer(await rawExchange(gateway.port, post(farOver.length), { body: farOver })));
      answers.push(jsonAnswer(await rawExchange(gateway.port, post('chunked'), { body: justOver, chunked: true })));
    }
    expect(answers).toEqual(Array.from({ length: answers.length }, () => payloadTooLarge));
    // Exactly 10 MB is accepted (our side stays open: Node's server drops a half-closed client's request).
    const atLimit = await rawExchange(gateway.port, post(maxBodyBytes).replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'), {
      body: Buffer.alloc(maxBodyBytes, 0x20),
      end: false,
    });
    expect({ status: atLimit.status, error: atLimit.error }).toEqual({ status: 200, error: undefined });
  }, 120_000);

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

  it('answers JSON 404 for a path with malformed percent-encoding (the default fallback)', async () => {
    const response = await rawRequest(`${gateway.baseUrl}/echo/%E0%A4%A/items/x`);
    expect({ status: response.status, type: response.headers['content-type'], body: response.json() }).toEqual({
      status: 404,
      type: 'application/json',
      body: { detail: 'Not found.', code: 'not_found' },
    });
  });

  it('sends a malformed percent-encoding and a fallback prefix itself to the fallback of the longest prefix, as the stack does', async () => {
    const withEchoFallbacks = await startGateway({
      routes: [testRoute('item', 'GET', '/developer/api/sims/{sim}/', echo), { ...developerFallbackRoute, handler: echo }, { ...defaultFallbackRoute, handler: echo }],
      quiet: true,
    });
    try {
      const seen = async (path: string) => {
        const { event } = (await rawRequest(`${withEchoFallbacks.baseUrl}${path}`)).json() as EchoBody;
        return { resource: event.resource, pathParameters: event.pathParameters };
      };
      expect(await seen('/developer/api/%FF/a%20b/')).toEqual({ resource: '/developer/api/{proxy+}', pathParameters: { proxy: '%FF/a b' } });
      expect(await seen('/developer/api/sims/%ED%A0%80/')).toEqual({ resource: '/developer/api/{proxy+}', pathParameters: { proxy: 'sims/%ED%A0%80' } });
      expect(await seen('/developer/api/')).toEqual({ resource: '/developer/api', pathParameters: null });
      expect(await seen('/developer/')).toEqual({ resource: '/{proxy+}', pathParameters: { proxy: 'developer' } });
      expect(await seen('/%C0%AE/')).toEqual({ resource: '/{proxy+}', pathParameters: { proxy: '%C0%AE' } });
      expect(await seen('/developer/api/sims/7/')).toEqual({ resource: '/developer/api/sims/{sim}/', pathParameters: { sim: '7' } });
    } finally {
      await withEchoFallbacks.stop();
    }
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
