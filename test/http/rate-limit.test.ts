import { beforeAll, describe, expect, it } from 'vitest';
import type { DeveloperCaller } from '../../shared/auth/two-factor';
import { rateLimit } from '../../shared/http/developer/rate-limit';
import type { DeveloperDeps } from '../../shared/http/developer-route';
import { areaASeed } from '../area-a/support/seed';
import { rateHeaders, tableWithSeed, type TestClock } from '../area-a/support/invoke';
import { middyRequest, stateOf } from './support/middy-request';

const hourStart = Date.UTC(2026, 10, 20, 10, 0, 0);
const clock: TestClock = { now: hourStart };
let deps: DeveloperDeps;

beforeAll(async () => {
  deps = (await tableWithSeed(areaASeed(hourStart, ['counted', 'lister', 'warm', 'other'].map((id) => ({ id, customer: 'root' }))), clock)).deps;
});

const callerOf = (userId: string): DeveloperCaller => ({ userId, userCustomerId: 'root', customerId: 'root', customerPath: ['root'], roles: ['developer'], scopes: ['sims:read', 'sms:send'] });

describe('rateLimit', () => {
  it('counts the request for the verified caller and keeps the answer with its headers', async () => {
    const request = middyRequest({}, { caller: callerOf('counted') });
    await rateLimit(deps, false).before!(request);
    expect(stateOf(request)).toEqual({ caller: callerOf('counted'), limit: { headers: rateHeaders({ burst: 9, minute: 59, hour: 1499 }) } });
  });

  it('answers a second list poll within 5 s with 429 rate_limited_poll_interval, keeping the answer for the headers', async () => {
    await rateLimit(deps, true).before!(middyRequest({}, { caller: callerOf('lister') }));
    const request = middyRequest({}, { caller: callerOf('lister') });
    const thrown = await Promise.resolve(rateLimit(deps, true).before!(request)).catch((error: unknown) => error);
    const { status, code, extra, headers } = thrown as { status: number; code: string; extra: unknown; headers: unknown };
    expect({ status, code, extra, headers }).toEqual({ status: 429, code: 'rate_limited_poll_interval', extra: { retry_after_seconds: 5 }, headers: { 'Retry-After': '5' } });
    expect(stateOf(request).limit).toEqual({ headers: rateHeaders({ burst: 9, minute: 59, hour: 1499 }), rejection: thrown });
  });

  it('warm: takes the write the head start began for the remembered caller, writing nothing more', async () => {
    const counted = Promise.resolve({ headers: { 'X-RateLimit-Remaining-Burst': 'from the head start' } });
    const request = middyRequest({}, { hint: callerOf('warm'), caller: callerOf('warm'), counted });
    await rateLimit(deps, false).before!(request);
    expect(stateOf(request).limit).toEqual({ headers: { 'X-RateLimit-Remaining-Burst': 'from the head start' } });
  });

  it('warm: counts anew when the credentials turned out to be another caller\'s', async () => {
    const counted = Promise.resolve({ headers: { 'X-RateLimit-Remaining-Burst': 'from the head start' } });
    const request = middyRequest({}, { hint: callerOf('warm'), caller: callerOf('other'), counted });
    await rateLimit(deps, false).before!(request);
    expect(stateOf(request).limit).toEqual({ headers: rateHeaders({ burst: 9, minute: 59, hour: 1499 }) });
  });
});
