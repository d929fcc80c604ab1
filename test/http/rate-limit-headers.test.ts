import type { DeveloperCaller } from '../../shared/auth/two-factor';
import { describe, expect, it } from 'vitest';
import { rateLimitHeaders } from '../../shared/http/developer/rate-limit-headers';
import { rateHeaders } from '../area-a/support/invoke';
import { middyRequest } from './support/middy-request';

const caller: DeveloperCaller = { userId: 'u1', userCustomerId: 'root', customerId: 'root', customerPath: ['root'], roles: ['developer'], scopes: ['sims:read', 'sms:send'] };
const limit = { headers: rateHeaders({ burst: 9, minute: 59, hour: 1499 }) };

describe('rateLimitHeaders', () => {
  it('adds the rate limit answer\'s six headers to a successful response', async () => {
    const request = middyRequest({}, { caller, limit });
    await rateLimitHeaders().after!(request);
    expect(request.internal).toEqual({ developer: { caller, limit }, responseHeaders: limit.headers });
  });

  it('adds them to an error answer too (the 429 itself, a 400 of validation)', async () => {
    const request = middyRequest({}, { caller, limit });
    await rateLimitHeaders().onError!(request);
    expect(request.internal).toEqual({ developer: { caller, limit }, responseHeaders: limit.headers });
  });

  it('adds none when the request was never counted (authentication failed)', async () => {
    const request = middyRequest({}, {});
    await rateLimitHeaders().onError!(request);
    expect(request.internal).toEqual({ developer: {} });
  });
});
