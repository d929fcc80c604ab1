import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { revokeApiKey, revokeBearerToken, setUserActive } from '../../shared/auth/admin';
import { useTestRuntime } from '../support/runtime';
import { testDynamoClient } from '../support/resources';
import { firstRequestHeaders, json, send } from './support/http';
import { apiKeyOf, areaASeed, tokenOf, type TestUser } from './support/seed';

const users: TestUser[] = [
  { id: 'ada', customer: 'root' },
  { id: 'cas', customer: 'root' },
  { id: 'nora', customer: 'north' },
  { id: 'ina', customer: 'root', active: false },
  { id: 'pat', customer: 'root', roles: ['viewer'] },
  { id: 'otto', customer: 'other' },
  { id: 'rex', customer: 'root', tokenRevoked: true },
  { id: 'tess', customer: 'root' },
  { id: 'dee', customer: 'root' },
  { id: 'kim', customer: 'root' },
  { id: 'nia', customer: 'root' },
];

const client = testDynamoClient();
const runtime = useTestRuntime(() => ({ seed: areaASeed(Date.now(), users, [{ label: 'spare', customer: 'root' }]) }), {
  stopAfter: () => client.destroy(),
});
const admin = () => ({ db: DynamoDBDocumentClient.from(client), tableName: runtime.tableName });

const get = (path: string, headers: Record<string, string>) => send(runtime.baseUrl, path, { headers });
const bearer = (user: string) => ({ Authorization: `Bearer ${tokenOf(user)}` });
const both = (user: string, customer = 'root') => ({ ...bearer(user), 'X-Customer-API-Key': apiKeyOf(customer) });
const refusal = (status: number, code: string, detail: string) => ({ status, headers: json, body: { detail, code } });

const codes = {
  bearer_token_required: refusal(401, 'bearer_token_required', 'A personal bearer token is required: Authorization: Bearer bearer_<prefix>_<secret>.'),
  invalid_bearer_token: refusal(401, 'invalid_bearer_token', 'The bearer token is invalid or has been revoked.'),
  user_inactive: refusal(401, 'user_inactive', "The bearer token's user account is inactive."),
  api_key_required: refusal(401, 'api_key_required', 'An API key is required in the X-Customer-API-Key (or X-service-API-Key) header.'),
  invalid_api_key: refusal(401, 'invalid_api_key', 'The API key is invalid or has been revoked.'),
  developer_access_required: refusal(403, 'developer_access_required', 'The user does not have the developer role.'),
  tenant_scope_mismatch: refusal(403, 'tenant_scope_mismatch', "The API key belongs to a different customer group than the user's."),
};

const answer = async (path: string, headers: Record<string, string>) => {
  const { status, headers: answered, body } = await get(path, headers);
  return { status, headers: answered, body };
};

describe('Area A two-factor authentication (over HTTP)', () => {
  const wrongSecretToken = tokenOf('ada').replace(/.$/, 'X');
  const wrongSecretKey = apiKeyOf('root').replace(/.$/, 'X');
  it.each([
    ['no Authorization header', {}, 'bearer_token_required'],
    ['another scheme', { Authorization: 'Basic YWRhOnNlY3JldA==', 'X-Customer-API-Key': apiKeyOf('root') }, 'bearer_token_required'],
    ['an empty Bearer credential', { Authorization: 'Bearer ', 'X-Customer-API-Key': apiKeyOf('root') }, 'bearer_token_required'],
    ['a malformed token', { Authorization: 'Bearer not-a-token', 'X-Customer-API-Key': apiKeyOf('root') }, 'invalid_bearer_token'],
    ['a token whose prefix is 5,000 characters', { Authorization: `Bearer bearer_${'a'.repeat(5_000)}_secret`, 'X-Customer-API-Key': apiKeyOf('root') }, 'invalid_bearer_token'],
    ['an unknown token', { Authorization: `Bearer ${tokenOf('nobody')}`, 'X-Customer-API-Key': apiKeyOf('root') }, 'invalid_bearer_token'],
    ['a token with a wrong secret', { Authorization: `Bearer ${wrongSecretToken}`, 'X-Customer-API-Key': apiKeyOf('root') }, 'invalid_bearer_token'],
    ['a revoked token', both('rex'), 'invalid_bearer_token'],
    ["an inactive user's token", both('ina'), 'user_inactive'],
    ['no API key header', bearer('ada'), 'api_key_required'],
    ['an empty API key header', { ...bearer('ada'), 'X-Customer-API-Key': '' }, 'api_key_required'],
    ['a malformed key', { ...bearer('ada'), 'X-Customer-API-Key': 'devkey_nope' }, 'invalid_api_key'],
    ['a key whose prefix is 5,000 characters', { ...bearer('ada'), 'X-Customer-API-Key': `devkey_${'k'.repeat(5_000)}_secret` }, 'invalid_api_key'],
    ['an unknown key', { ...bearer('ada'), 'X-Customer-API-Key': apiKeyOf('nowhere') }, 'invalid_api_key'],
    ['a key with a wrong secret', { ...bearer('ada'), 'X-Customer-API-Key': wrongSecretKey }, 'invalid_api_key'],
    ['a revoked key', { ...bearer('ada'), 'X-Customer-API-Key': apiKeyOf('revoked') }, 'invalid_api_key'],
    ['a user without the developer role', both('pat'), 'developer_access_required'],
    ["another group's key", both('otto', 'root'), 'tenant_scope_mismatch'],
    ["a sub-customer's user with the parent's key", both('nora', 'root'), 'tenant_scope_mismatch'],
  ] as const)('refuses %s with its code and no rate-limit headers', async (_case, headers, code) => {
    expect(await answer('/developer/api/sims/1001/', headers)).toEqual(codes[code]);
  });

  it.each([
    ['no token and no key', {}, 'bearer_token_required'],
    ['an invalid token and no key', { Authorization: 'Bearer junk' }, 'invalid_bearer_token'],
    ['an inactive user and an invalid key', { ...bearer('ina'), 'X-Customer-API-Key': 'junk' }, 'user_inactive'],
    ['no developer role and no key', bearer('pat'), 'api_key_required'],
    ['no developer role and a revoked key', { ...bearer('pat'), 'X-Customer-API-Key': apiKeyOf('revoked') }, 'invalid_api_key'],
    ["no developer role and another group's key", both('pat', 'other'), 'developer_access_required'],
  ] as const)('checks bearer, then key, then role, then tenant: %s is %s', async (_case, headers, code) => {
    expect(await answer('/developer/api/sims/', headers)).toEqual(codes[code]);
  });

  it('authenticates before routing: an unknown path without credentials is 401, not 404', async () => {
    expect(await answer('/developer/api/no-such-thing/', {})).toEqual(codes.bearer_token_required);
    expect(await answer('/developer/api/sims/', { ...bearer('ada') })).toEqual(codes.api_key_required);
  });

  it('says that an API key sent as the bearer token belongs in X-Customer-API-Key', async () => {
    expect(await answer('/developer/api/sims/1001/', { Authorization: `Bearer ${apiKeyOf('root')}`, 'X-Customer-API-Key': apiKeyOf('root') })).toEqual(
      refusal(
        401,
        'invalid_bearer_token',
        'This is an API key (devkey_...), not a bearer token: send it in X-Customer-API-Key, and your personal bearer_... token in Authorization: Bearer.',
      ),
    );
  });

  it('refuses ambiguous credentials: a header sent twice, or both API key headers with different keys, naming the header', async () => {
    const twice = (headers: Array<[string, string]>) => send(runtime.baseUrl, '/developer/api/sims/1001/', { headers }).then(({ status, headers: answered, body }) => ({ status, headers: answered, body }));
    const token = tokenOf('ada');
    const key = apiKeyOf('root');
    const bearerTwice = refusal(401, 'invalid_bearer_token', 'The Authorization header was sent more than once: send one bearer token.');
    expect(await twice([['Authorization', `Bearer ${tokenOf('cas')}`], ['Authorization', `Bearer ${token}`], ['X-Customer-API-Key', key]])).toEqual(bearerTwice);
    expect(await twice([['Authorization', `Bearer ${token}`], ['authorization', `Bearer ${token}`], ['X-Customer-API-Key', key]])).toEqual(bearerTwice);
    expect(await twice([['Authorization', `Bearer ${token}`], ['X-Customer-API-Key', apiKeyOf('revoked')], ['X-Customer-API-Key', key]])).toEqual(
      refusal(401, 'invalid_api_key', 'The X-Customer-API-Key header was sent more than once: send one API key.'),
    );
    expect(await twice([['Authorization', `Bearer ${token}`], ['X-service-API-Key', key], ['X-service-API-Key', key]])).toEqual(
      refusal(401, 'invalid_api_key', 'The X-service-API-Key header was sent more than once: send one API key.'),
    );
    expect(await twice([['Authorization', `Bearer ${token}`], ['X-Customer-API-Key', key], ['X-service-API-Key', apiKeyOf('north')]])).toEqual(
      refusal(401, 'invalid_api_key', 'X-Customer-API-Key and X-service-API-Key carry different API keys: send one API key.'),
    );
    // The spec's order still holds: the token is judged before the key.
    expect(await twice([['Authorization', `Bearer ${tokenOf('ina')}`], ['X-Customer-API-Key', key], ['X-Customer-API-Key', key]])).toEqual(codes.user_inactive);
    // Both API key headers with the same key are one key.
    expect((await twice([['Authorization', `Bearer ${token}`], ['X-Customer-API-Key', key], ['X-service-API-Key', key]])).status).toBe(200);
  });

  it('accepts header names in any case, the X-service-API-Key alternative and the scheme in any case', async () => {
    const variants: Record<string, string>[] = [
      { authorization: `bearer ${tokenOf('cas')}`, 'x-customer-api-key': apiKeyOf('root') },
      { AUTHORIZATION: `BEARER ${tokenOf('cas')}`, 'X-SERVICE-API-KEY': apiKeyOf('root') },
      { Authorization: `Bearer ${tokenOf('cas')}`, 'X-service-API-Key': apiKeyOf('root') },
    ];
    const statuses = [];
    for (const headers of variants) statuses.push((await get('/developer/api/sims/1001/', headers)).status);
    expect(statuses).toEqual([200, 200, 200]);
  });

  it("lets a parent customer's user use a sub-customer's key, scoped to the sub-customer", async () => {
    const answered = await get('/developer/api/sims/1001/', both('kim', 'north'));
    expect(answered).toMatchObject({ status: 404, body: { detail: 'Not found.', code: 'not_found' } });
    expect((await get('/developer/api/sims/2001/', both('kim', 'north'))).status).toBe(200);
  });

  it('applies a token revocation to the very next request', async () => {
    expect(await answer('/developer/api/sims/1001/', both('tess'))).toMatchObject({ status: 200, headers: firstRequestHeaders });
    await revokeBearerToken(admin(), tokenOf('tess'));
    expect(await answer('/developer/api/sims/1001/', both('tess'))).toEqual(codes.invalid_bearer_token);
  });

  it('applies a key revocation to the very next request', async () => {
    expect((await get('/developer/api/sims/1001/', both('dee', 'spare'))).status).toBe(200);
    await revokeApiKey(admin(), 'sparekey');
    expect(await answer('/developer/api/sims/1001/', both('dee', 'spare'))).toEqual(codes.invalid_api_key);
  });

  it('applies a deactivation (and a reactivation) of the user to the very next request', async () => {
    expect((await get('/developer/api/sims/1001/', both('nia'))).status).toBe(200);
    await setUserActive(admin(), 'nia', false);
    expect(await answer('/developer/api/sims/1001/', both('nia'))).toEqual(codes.user_inactive);
    await setUserActive(admin(), 'nia', true);
    expect((await get('/developer/api/sims/1001/', both('nia'))).status).toBe(200);
  });
});
