import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { DeveloperCaller } from '../../shared/auth/two-factor';
import { speculativeRead } from '../../shared/http/developer/speculative-read';
import type { RouteRead } from '../../shared/http/developer/state';
import { middyRequest, stateOf } from './support/middy-request';

const caller: DeveloperCaller = { userId: 'reader', userCustomerId: 'root', customerId: 'root', customerPath: ['root'], roles: ['developer'], scopes: ['sims:read', 'sms:send'] };
const other: DeveloperCaller = { ...caller, userId: 'another' };
// No write of this process has been seen, so the container's view expects admission.
const deps = { now: () => Date.UTC(2026, 10, 20, 10, 0, 0) } as never;

/** A route read that records what it was asked, in order, and answers `read by <user>`. */
const recordingRead = (options: { reads?: boolean; looksUp?: boolean } = {}) => {
  const calls: string[] = [];
  const read: RouteRead = {
    reads: options.reads ?? true,
    looksUp: options.looksUp ?? false,
    lookup: async () => undefined,
    start: async (_event: APIGatewayProxyEvent, who: DeveloperCaller, looked: Promise<unknown>) => {
      calls.push(`start for ${who.userId} after ${String(await looked)}`);
      return `read by ${who.userId}`;
    },
  };
  return { read, calls };
};

describe('speculativeRead', () => {
  it('cold: waits for the lookup, then starts the read for the verified caller beside the rate-limit write', async () => {
    const { read, calls } = recordingRead({ looksUp: true });
    const looked = new Promise((resolve) => setTimeout(() => resolve('the lookup'), 10));
    const request = middyRequest({}, { caller, looked });
    await speculativeRead(deps, read, false).before!(request);
    expect(await stateOf(request).prepared).toBe('read by reader');
    expect(calls).toEqual(['start for reader after the lookup']);
  });

  it('cold: starts nothing for a route that reads nothing', async () => {
    const { read, calls } = recordingRead({ reads: false });
    const request = middyRequest({}, { caller });
    await speculativeRead(deps, read, false).before!(request);
    expect(stateOf(request)).toEqual({ caller, prepared: undefined });
    expect(calls).toEqual([]);
  });

  it('warm: takes the items that rode in the authentication read', async () => {
    const { read, calls } = recordingRead();
    const also = [{ PK: 'SIM#1', SK: 'SIM' }, undefined];
    const request = middyRequest({}, { hint: caller, caller, itemKeys: [{ PK: 'SIM#1', SK: 'SIM' }, { PK: 'G#root', SK: 'DIR' }], also });
    await speculativeRead(deps, read, false).before!(request);
    expect(await stateOf(request).prepared).toEqual(also);
    expect(calls).toEqual([]);
  });

  it('warm: keeps the read the head start began for the remembered caller', async () => {
    const { read } = recordingRead();
    const prepared = Promise.resolve('read by reader');
    const request = middyRequest({}, { hint: caller, caller, prepared });
    await speculativeRead(deps, read, false).before!(request);
    expect(stateOf(request).prepared).toBe(prepared);
  });

  it('warm: drops that read when the credentials turned out to be another caller\'s', async () => {
    const { read, calls } = recordingRead();
    const request = middyRequest({}, { hint: caller, caller: other, prepared: Promise.resolve('read by reader') });
    await speculativeRead(deps, read, false).before!(request);
    expect(stateOf(request).prepared).toBeUndefined();
    expect(calls).toEqual([]);
  });
});
