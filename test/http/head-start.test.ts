import { beforeAll, describe, expect, it } from 'vitest';
import { rememberCaller } from '../../shared/auth/caller-cache';
import type { DeveloperCaller } from '../../shared/auth/two-factor';
import { headStart } from '../../shared/http/developer/head-start';
import type { RouteRead } from '../../shared/http/developer/state';
import type { DeveloperDeps } from '../../shared/http/developer-route';
import { areaASeed } from '../area-a/support/seed';
import { rateHeaders, tableWithSeed } from '../area-a/support/invoke';
import { credentials, middyRequest, stateOf } from './support/middy-request';

const now = Date.UTC(2026, 10, 20, 10, 0, 0);
let deps: DeveloperDeps;

beforeAll(async () => {
  deps = (await tableWithSeed(areaASeed(now, ['cold', 'warm', 'items'].map((id) => ({ id, customer: 'root' }))), { now })).deps;
});

const callerOf = (userId: string): DeveloperCaller => ({ userId, userCustomerId: 'root', customerId: 'root', customerPath: ['root'], roles: ['developer'], scopes: ['sims:read', 'sms:send'] });

/** A route read with a lookup that records what starts, and answers `read by <user>`. */
const recordingRead = (items?: RouteRead['itemKeys']) => {
  const calls: string[] = [];
  const read: RouteRead = {
    reads: true,
    looksUp: true,
    lookup: async () => (calls.push('lookup'), 'looked'),
    ...(items ? { itemKeys: items } : {}),
    start: async (_event, caller) => (calls.push(`read for ${caller.userId}`), `read by ${caller.userId}`),
  };
  return { read, calls };
};

describe('headStart', () => {
  it('cold (no remembered caller): starts the lookup only', async () => {
    const { read, calls } = recordingRead();
    const request = middyRequest(credentials('cold'));
    await headStart(deps, read, false).before!(request);
    const state = stateOf(request);
    expect(await state.looked).toBe('looked');
    expect(state).toEqual({ looked: state.looked });
    expect(calls).toEqual(['lookup']);
  });

  it('warm: starts authentication, the rate-limit write and the expected read for the remembered caller at once', async () => {
    const headers = credentials('warm');
    rememberCaller(headers, callerOf('warm'));
    const { read, calls } = recordingRead();
    const request = middyRequest(headers);
    await headStart(deps, read, false).before!(request);
    const state = stateOf(request);
    expect(calls).toEqual(['lookup', 'read for warm']);
    expect(await state.verifying).toEqual({ caller: callerOf('warm') });
    expect(await state.counted).toEqual({ headers: rateHeaders({ burst: 9, minute: 59, hour: 1499 }) });
    expect(await state.prepared).toBe('read by warm');
    expect(state.hint).toEqual(callerOf('warm'));
    expect(state.itemKeys).toBeUndefined();
  });

  it('warm: a route\'s items ride in the authentication read instead of a read of their own', async () => {
    const headers = credentials('items');
    rememberCaller(headers, callerOf('items'));
    const keys = [{ PK: 'SIM#1001', SK: 'SIM' }, { PK: 'SIM#999999', SK: 'SIM' }];
    const { read, calls } = recordingRead(() => ({ keys }));
    const request = middyRequest(headers);
    await headStart(deps, read, false).before!(request);
    const state = stateOf(request);
    const verified = await state.verifying;
    expect(calls).toEqual(['lookup']);
    expect(state.itemKeys).toEqual(keys);
    expect(state.prepared).toBeUndefined();
    expect(verified?.also?.map((item) => item && { PK: item.PK, id: item.id })).toEqual([{ PK: 'SIM#1001', id: 1001 }, undefined]);
    await state.counted;
  });
});
