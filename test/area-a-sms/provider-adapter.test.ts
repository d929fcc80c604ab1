import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpSmsProvider, SmsProviderFailure } from '../../shared/adapters/sms-provider/provider';
import { closedPort } from './support/http';

type Seen = { method: string; url: string; authorization?: string; contentType?: string; body: unknown };
const seen: Seen[] = [];
let behaviour: (response: ServerResponse) => void = (response) => response.writeHead(202).end();
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        authorization: request.headers.authorization,
        contentType: request.headers['content-type'],
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      behaviour(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const provider = (overrides: Partial<Parameters<typeof httpSmsProvider>[0]> = {}) =>
  httpSmsProvider({ baseUrl, token: 'provider-token', receiptUrl: 'https://api.example/sms-provider/receipts', ...overrides });

const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SmsProviderFailure) return error.kind;
    throw error;
  }
  throw new Error('submission succeeded');
};

const message = { reference: 'm-1', to: '447700900001', text: 'hello' };

describe('SMS provider adapter', () => {
  it('POSTs {reference, to, text, receipt_url} to <SMS_PROVIDER_URL>/messages with the bearer token', async () => {
    behaviour = (response) =>
      response.writeHead(202, { 'content-type': 'application/json' }).end('{"provider_message_id":"p-9","status":"accepted"}');
    seen.length = 0;
    expect(await provider().submit(message)).toEqual({ providerMessageId: 'p-9' });
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/messages',
        authorization: 'Bearer provider-token',
        contentType: 'application/json',
        body: { reference: 'm-1', to: '447700900001', text: 'hello', receipt_url: 'https://api.example/sms-provider/receipts' },
      },
    ]);
  });

  it('treats 4xx, 5xx and redirects as a provider error', async () => {
    for (const status of [400, 401, 500, 503, 302]) {
      behaviour = (response) => response.writeHead(status, { location: 'http://127.0.0.1:1/' }).end('{}');
      expect(await failure(provider().submit(message))).toBe('error');
    }
  });

  it('treats a refused connection and an answer that never comes as unreachable', async () => {
    expect(await failure(provider({ baseUrl: `http://127.0.0.1:${await closedPort()}` }).submit(message))).toBe('unreachable');
    behaviour = () => undefined; // never answers
    expect(await failure(provider({ totalTimeoutMs: 300 }).submit(message))).toBe('unreachable');
  });
});
