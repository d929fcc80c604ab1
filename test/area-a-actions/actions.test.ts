import { describe, expect, it } from 'vitest';
import { useTestRuntime } from '../support/runtime';
import { firstRequestHeaders, json, rateLimitHeaders } from '../area-a/support/http';
import { call, type Answer } from './support/http';
import { actionsSeed, iccidOf, type SeedUser } from './support/seed';

/**
 * Issue #33 over HTTP against the local runtime: API key scopes on the existing routes and the
 * new ones.
 */

const users: SeedUser[] = [
  ...['s1', 's2', 's3', 's4'].map((id) => ({ id })),
  { id: 'viewer', roles: ['viewer'] },
];

const runtime = useTestRuntime(() => ({ seed: actionsSeed(users) }));

const get = (user: string, key: string, path: string) => call(runtime.baseUrl, { user, key }, 'GET', path);
const post = (user: string, key: string, path: string, body: unknown, headers: Record<string, string> = {}) => call(runtime.baseUrl, { user, key }, 'POST', path, body, headers);
const whole = (answer: Answer) => answer;
const insufficient = (scope: string) => ({
  status: 403,
  headers: json,
  body: { detail: `The API key does not have the ${scope} scope this operation needs.`, code: 'insufficient_scope' },
});

describe('API key scopes on the existing routes', () => {
  it('lets a sims:read key read SIMs and refuses it an SMS with 403 insufficient_scope, counting nothing', async () => {
    expect(whole(await post('s1', 'readonly', `/developer/api/sims/${iccidOf(105)}/sms/`, { message: 'hi' }))).toEqual(insufficient('sms:send'));
    // Again (the container now knows the caller): still refused, still not counted.
    expect(whole(await post('s1', 'readonly', `/developer/api/sims/${iccidOf(105)}/sms/`, { message: 'hi' }))).toEqual(insufficient('sms:send'));
    const read = await get('s1', 'readonly', '/developer/api/sims/105/');
    expect([read.status, read.headers, (read.body as { id: number }).id]).toEqual([200, { ...json, ...firstRequestHeaders }, 105]);
  });

  it('lets an sms:send key send and read its message, and refuses it A1 and A2', async () => {
    expect(whole(await get('s2', 'sendonly', '/developer/api/sims/105/'))).toEqual(insufficient('sims:read'));
    expect(whole(await get('s2', 'sendonly', '/developer/api/sims/'))).toEqual(insufficient('sims:read'));
    const sent = await post('s2', 'sendonly', `/developer/api/sims/${iccidOf(105)}/sms/`, { message: 'hi', message_id: 'scope-1' });
    expect([sent.status, sent.headers]).toEqual([202, { ...json, ...firstRequestHeaders }]);
    expect((await get('s2', 'sendonly', `/developer/api/sims/${iccidOf(105)}/sms/scope-1/`)).status).toBe(200);
  });

  it('refuses a key with no scopes everything scoped, and keeps what a key stored without scopes could do', async () => {
    expect(whole(await get('s3', 'none', '/developer/api/sims/105/'))).toEqual(insufficient('sims:read'));
    expect(whole(await post('s3', 'none', `/developer/api/sims/${iccidOf(105)}/sms/`, { message: 'hi' }))).toEqual(insufficient('sms:send'));
    const read = await get('s3', 'legacy', '/developer/api/sims/105/');
    expect([read.status, read.headers]).toEqual([200, { ...json, ...firstRequestHeaders }]);
    const sent = await post('s3', 'legacy', `/developer/api/sims/${iccidOf(105)}/sms/`, { message: 'hi' });
    expect([sent.status, sent.headers]).toEqual([202, { ...json, ...rateLimitHeaders({ burst: 8, minute: 58, hour: 1498 }) }]);
  });

  it('still needs the developer role: a viewer with a sims:manage key is 403 developer_access_required', async () => {
    expect(whole(await get('viewer', 'manage', '/developer/api/sims/105/'))).toEqual({
      status: 403,
      headers: json,
      body: { detail: 'The user does not have the developer role.', code: 'developer_access_required' },
    });
  });
});
