import type { DeveloperCaller } from '../../shared/auth/two-factor';
import { beforeAll, describe, expect, it } from 'vitest';
import { cachedCaller, rememberCaller } from '../../shared/auth/caller-cache';
import { authenticate } from '../../shared/http/developer/authenticate';
import type { DeveloperDeps } from '../../shared/http/developer-route';
import { areaASeed } from '../area-a/support/seed';
import { tableWithSeed } from '../area-a/support/invoke';
import { credentials, middyRequest, stateOf } from './support/middy-request';

const now = Date.UTC(2026, 10, 20, 10, 0, 0);
let deps: DeveloperDeps;

beforeAll(async () => {
  deps = (await tableWithSeed(areaASeed(now, [{ id: 'alice', customer: 'root' }, { id: 'bob', customer: 'north' }]), { now })).deps;
});

const alice: DeveloperCaller = { userId: 'alice', userCustomerId: 'root', customerId: 'north', customerPath: ['root', 'north'], roles: ['developer'], scopes: ['sims:read', 'sms:send'] };

/** An ApiError as its answer's parts. */
const answerOf = (error: unknown) => {
  const { status, code, detail } = error as { status: number; code: string; detail: string };
  return { status, code, detail };
};

describe('authenticate', () => {
  it('cold: verifies both factors, keeps the caller and remembers it for the credentials', async () => {
    const headers = credentials('alice', 'north');
    const request = middyRequest(headers);
    await authenticate(deps).before!(request);
    expect(stateOf(request)).toEqual({ caller: alice });
    expect(cachedCaller(headers)).toEqual(alice);
  });

  it('cold: answers 401 bearer_token_required without a token, and keeps no caller', async () => {
    const request = middyRequest({ 'X-Customer-API-Key': credentials('alice')['X-Customer-API-Key']! });
    const thrown = await Promise.resolve(authenticate(deps).before!(request)).catch((error: unknown) => error);
    expect(answerOf(thrown)).toEqual({
      status: 401,
      code: 'bearer_token_required',
      detail: 'A personal bearer token is required: Authorization: Bearer bearer_<prefix>_<secret>.',
    });
    expect(stateOf(request)).toEqual({});
  });

  it('warm: settles the head start\'s read with the rate-limit write beside it, and takes its items', async () => {
    const headers = credentials('alice', 'north');
    const steps: string[] = [];
    const verifying = Promise.resolve({ caller: alice, also: [{ PK: 'SIM#1', SK: 'SIM' }] });
    const counted = new Promise<{ headers: Record<string, string> }>((resolve) => setTimeout(() => (steps.push('counted'), resolve({ headers: {} })), 10));
    const request = middyRequest(headers, { hint: alice, verifying, counted });
    await authenticate(deps).before!(request);
    steps.push('authenticated');
    expect(steps).toEqual(['counted', 'authenticated']);
    expect(stateOf(request)).toEqual({ hint: alice, verifying, counted, caller: alice, also: [{ PK: 'SIM#1', SK: 'SIM' }] });
  });

  it('warm: a failed read answers its own error and forgets the credentials, whatever the rate limit said', async () => {
    const headers = credentials('alice', 'north');
    rememberCaller(headers, alice);
    const refused = Object.assign(new Error('revoked'), { status: 401, code: 'invalid_bearer_token', detail: 'revoked' });
    const verifying = Promise.reject(refused);
    verifying.catch(() => undefined);
    const request = middyRequest(headers, { hint: alice, verifying, counted: Promise.resolve({ headers: {} }) });
    await expect(authenticate(deps).before!(request)).rejects.toBe(refused);
    expect(cachedCaller(headers)).toBeUndefined();
    expect(stateOf(request).caller).toBeUndefined();
  });

  it('warm: remembers the verified caller when it is not the remembered one', async () => {
    const headers = credentials('bob', 'north');
    const bob: DeveloperCaller = { userId: 'bob', userCustomerId: 'north', customerId: 'north', customerPath: ['root', 'north'], roles: ['developer'], scopes: ['sims:read', 'sms:send'] };
    const request = middyRequest(headers, { hint: alice, verifying: Promise.resolve({ caller: bob }) });
    await authenticate(deps).before!(request);
    expect(stateOf(request).caller).toEqual(bob);
    expect(cachedCaller(headers)).toEqual(bob);
  });
});
