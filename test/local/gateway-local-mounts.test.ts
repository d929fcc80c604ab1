import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { localMountFor, startGateway, type Gateway } from '../../local/gateway';

// The gateway's `/_local/` mounts: the longest prefix serves a path, whatever order the mounts
// were given in, so the developer console at `/_local` never takes `/_local/stripe`'s paths
// (or `/_local/docs`'s), and a prefix matches whole segments only.
describe('localMountFor', () => {
  const mounts = ['/_local', '/_local/stripe', '/_local/openapi.json'];

  it('picks the longest mount that is the path or a leading run of its segments', () => {
    const picks = Object.fromEntries(
      ['/_local', '/_local/', '/_local/orders/x/pay', '/_local/stripe', '/_local/stripe/v1/payment_intents', '/_local/stripes', '/_local/openapi.json', '/_local/openapi.jsonx', '/_localx', '/api/v1/checkout'].map(
        (path) => [path, localMountFor(mounts, path)],
      ),
    );
    expect(picks).toEqual({
      '/_local': '/_local',
      '/_local/': '/_local',
      '/_local/orders/x/pay': '/_local',
      '/_local/stripe': '/_local/stripe',
      '/_local/stripe/v1/payment_intents': '/_local/stripe',
      '/_local/stripes': '/_local',
      '/_local/openapi.json': '/_local/openapi.json',
      '/_local/openapi.jsonx': '/_local',
      '/_localx': undefined,
      '/api/v1/checkout': undefined,
    });
    expect(localMountFor([...mounts].reverse(), '/_local/stripe/v1/payment_intents')).toBe('/_local/stripe');
  });
});

describe('the gateway with nested /_local mounts', () => {
  let gateway: Gateway;
  const answer = (name: string) => async (request: IncomingMessage, response: ServerResponse, path: string) => {
    response.writeHead(200, { 'Content-Type': 'application/json' });
    response.end(JSON.stringify({ mount: name, path }));
  };

  beforeAll(async () => {
    gateway = await startGateway({ routes: [], quiet: true, localMounts: { '/_local': answer('console'), '/_local/stripe': answer('stripe') } });
  });

  afterAll(async () => {
    await gateway?.stop();
  });

  it('hands each path to its longest mount, with the path below the mount', async () => {
    const seen = await Promise.all(
      ['/_local', '/_local/', '/_local/outbox/a.eml', '/_local/stripe/v1/payment_intents', '/_local/stripe'].map(async (path) => (await fetch(`${gateway.baseUrl}${path}`)).json()),
    );
    expect(seen).toEqual([
      { mount: 'console', path: '/' },
      { mount: 'console', path: '/' },
      { mount: 'console', path: '/outbox/a.eml' },
      { mount: 'stripe', path: '/v1/payment_intents' },
      { mount: 'stripe', path: '/' },
    ]);
  });
});
