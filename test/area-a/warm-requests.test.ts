import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey, revokeBearerToken, setUserActive } from '../../shared/auth/admin';
import { countCalls, type CallCounter } from '../../shared/db/call-counter';
import { key } from '../../shared/db/keys';
import { loadSeedDocument } from '../../local/seed/load';
import { apiKeyOf, areaASeed, tokenOf, type TestUser } from './support/seed';
import { areaAHandlers, invoke, rateHeaders, tableWithSeed, type TestClock } from './support/invoke';

/**
 * Warm requests (docs/area-a.md, "Warm requests"): once a container has verified a token and
 * key, its next request with them reads the credentials and the SIM (one BatchGetItem) beside
 * the rate-limit write, in one round trip; and a revocation, a deactivation or a role change made by the admin
 * writers (shared/auth/admin.ts, the seed loader) still answers the very next request 401/403,
 * exactly as a cold container would.
 */

const start = Date.UTC(2026, 10, 20, 10, 0, 0);
const clock: TestClock = { now: start };
const users: TestUser[] = ['warm', 'tokrev', 'keyrev', 'inactive', 'role', 'cold'].map((id) => ({ id, customer: 'root' }));
const extraKeys = [{ label: 'keyrev', customer: 'root' }];

let seeded: Awaited<ReturnType<typeof tableWithSeed>>;
let handlers: ReturnType<typeof areaAHandlers>;
let counter: CallCounter;

beforeAll(async () => {
  seeded = await tableWithSeed(areaASeed(start, users, extraKeys), clock);
  counter = countCalls(seeded.db);
  handlers = areaAHandlers(seeded.deps);
}, 60_000);

afterAll(() => seeded?.client.destroy());

const as = (user: string, keyLabel = 'root') => ({ Authorization: `Bearer ${tokenOf(user)}`, 'X-Customer-API-Key': apiKeyOf(keyLabel) });
const sim = '/developer/api/sims/1002/';
const simBody = {
  id: 1002, iccid: '8944500000000001002', msisdn: null, status: 'suspended', connection_status: 'inactive',
  customer_name: 'Root Group', group: null, tariff_name: null,
  usage: { data_used_mb: '0.00', data_overage_mb: '0.00' },
  cost: { currency: 'GBP', base_cost: '£0.00', overage_cost: '£0.00', total_cost: '£0.00' },
  data_bundle: null, updated_at: '2026-10-31T10:00:00+00:00',
};
const json = { 'Content-Type': 'application/json' };
const refused = (status: number, code: string, detail: string) => ({ status, headers: json, body: { detail, code } });

/** One request: its whole answer, its calls (sorted names) and round trips. */
const measure = async (headers: Record<string, string>, path = sim) => {
  counter.reset();
  const { status, headers: answered, body } = await invoke(handlers, path, { headers });
  const batch = counter.calls.find((call) => call.command === 'BatchGetItemCommand')?.input as
    | { RequestItems: Record<string, { Keys: unknown[] }> }
    | undefined;
  return {
    answer: { status, headers: answered, body },
    commands: counter.calls.map((call) => call.command).sort(),
    batchKeys: batch ? Object.values(batch.RequestItems)[0]!.Keys : [],
    rounds: counter.roundTrips(),
  };
};

describe('a warm container', () => {
  it('reads a SIM in one round trip once it has verified the credentials: auth and SIM read beside the rate-limit write', async () => {
    const cold = await measure(as('warm'));
    expect(cold.answer).toEqual({ status: 200, headers: { ...json, ...rateHeaders({ burst: 9, minute: 59, hour: 1499 }) }, body: simBody });
    expect(cold.rounds).toBe(2);
    const warm = await measure(as('warm'));
    expect(warm.answer).toEqual({ status: 200, headers: { ...json, ...rateHeaders({ burst: 8, minute: 58, hour: 1498 }) }, body: simBody });
    // The SIM and its group's directory ride in the (strongly consistent) authentication read, beside the rate-limit write.
    expect(warm.commands).toEqual(['BatchGetItemCommand', 'UpdateItemCommand']);
    expect(warm.batchKeys).toEqual([key.bearerToken('warmtok'), key.apiKey('rootkey'), key.sim(1002), key.groupDirectory('root')]);
    expect(warm.rounds).toBe(1);
  });

  it('answers 429 without reading the SIM when its own view says the burst is used up, in one round trip', async () => {
    for (let index = 0; index < 10; index += 1) expect((await invoke(handlers, sim, { headers: as('cold') })).status).toBe(200);
    const limited = await measure(as('cold'));
    expect([limited.answer.status, (limited.answer.body as { code: string }).code]).toEqual([429, 'rate_limited_burst']);
    expect(limited.commands).toEqual(['BatchGetItemCommand', 'GetItemCommand']);
    expect(limited.batchKeys).toEqual([key.bearerToken('coldtok'), key.apiKey('rootkey')]);
    expect(limited.rounds).toBe(1);
  });

  it('answers the very next request after a token revocation 401 invalid_bearer_token, then stops guessing', async () => {
    expect((await measure(as('tokrev'))).answer.status).toBe(200);
    await revokeBearerToken(seeded.deps, tokenOf('tokrev'));
    const next = await measure(as('tokrev'));
    expect(next.answer).toEqual(refused(401, 'invalid_bearer_token', 'The bearer token is invalid or has been revoked.'));
    // It went the warm way (all three calls at once); the consistent auth read decided the answer.
    expect([next.commands, next.rounds]).toEqual([['BatchGetItemCommand', 'UpdateItemCommand'], 1]);
    const after = await measure(as('tokrev'));
    expect(after.answer).toEqual(next.answer);
    expect(after.commands).toEqual(['BatchGetItemCommand']);
  });

  it('answers the very next request after a key revocation 401 invalid_api_key', async () => {
    expect((await measure(as('keyrev', 'keyrev'))).answer.status).toBe(200);
    await revokeApiKey(seeded.deps, apiKeyOf('keyrev'));
    expect((await measure(as('keyrev', 'keyrev'))).answer).toEqual(
      refused(401, 'invalid_api_key', 'The API key is invalid or has been revoked.'),
    );
  });

  it('answers the very next request after a deactivation 401 user_inactive, and after a reactivation 200', async () => {
    expect((await measure(as('inactive'))).answer.status).toBe(200);
    await setUserActive(seeded.deps, 'inactive', false);
    expect((await measure(as('inactive'))).answer).toEqual(refused(401, 'user_inactive', "The bearer token's user account is inactive."));
    await setUserActive(seeded.deps, 'inactive', true);
    expect((await measure(as('inactive'))).answer.status).toBe(200);
  });

  it('answers the very next request after the developer role is removed (seed loader) 403 developer_access_required', async () => {
    expect((await measure(as('role'))).answer.status).toBe(200);
    const changed = users.map((user) => (user.id === 'role' ? { ...user, roles: ['viewer'] } : user));
    await loadSeedDocument(areaASeed(start, changed, extraKeys), { client: seeded.client, tableName: seeded.tableName });
    expect((await measure(as('role'))).answer).toEqual(refused(403, 'developer_access_required', 'The user does not have the developer role.'));
  });
});
