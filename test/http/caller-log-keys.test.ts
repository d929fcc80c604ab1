import type { DeveloperCaller } from '../../shared/auth/two-factor';
import { describe, expect, it } from 'vitest';
import { callerLogKeys } from '../../shared/http/developer/caller-log-keys';
import type { DeveloperState } from '../../shared/http/developer/state';
import { logKeys, withInvocation } from '../../shared/observability/invocation';
import { middyRequest } from './support/middy-request';

const caller: DeveloperCaller = { userId: 'u1', userCustomerId: 'north', customerId: 'northeast', customerPath: ['root', 'north', 'northeast'], roles: ['developer'], scopes: ['sims:read', 'sms:send'] };
const limit = { headers: {} };

/** The caller keys on the invocation's log context after running `hook` on a request with `state`. */
const keysAfter = (hook: 'before' | 'onError', state: DeveloperState) =>
  withInvocation(middyRequest().context, { correlation_id: 'gateway-request-1' }, async () => {
    await callerLogKeys()[hook]!(middyRequest({}, state));
    const { user_id, customer_id } = logKeys();
    return { user_id, customer_id };
  });

describe('callerLogKeys', () => {
  it('puts the admitted caller\'s ids (never the credentials) on every later log line', async () => {
    expect(await keysAfter('before', { caller, limit })).toEqual({ user_id: 'u1', customer_id: 'northeast' });
  });

  it('puts them on the lines of a refused request too (the 429 is thrown before its before runs)', async () => {
    expect(await keysAfter('onError', { caller, limit: { headers: {}, rejection: new Error('429') as never } })).toEqual({
      user_id: 'u1',
      customer_id: 'northeast',
    });
  });

  it('adds nothing before the rate limit has answered (authentication or the rate-limit write failed)', async () => {
    expect(await keysAfter('onError', { caller })).toEqual({ user_id: undefined, customer_id: undefined });
    expect(await keysAfter('onError', {})).toEqual({ user_id: undefined, customer_id: undefined });
  });
});
