import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countCalls, type CallCounter } from '../../shared/db/call-counter';
import { key } from '../../shared/db/keys';
import type { DeveloperDeps } from '../../shared/http/developer-route';
import { apiKeyOf, areaASeed, tokenOf } from './support/seed';
import { areaAHandlers, invoke, tableWithSeed, type TestClock } from './support/invoke';
import { testDynamoClient } from '../support/resources';

/**
 * Cost targets (docs/area-a.md, "Access patterns"): how many DynamoDB calls each request makes
 * and in how many sequential round trips, counted on the handlers' own client.
 */

const start = Date.UTC(2026, 10, 20, 10, 0, 0);
const clock: TestClock = { now: start };
const big = { customer: 'big', sims: 3_000, firstId: 100_001 };

let deps: DeveloperDeps;
let counter: CallCounter;
let handlers: ReturnType<typeof areaAHandlers>;
const client = testDynamoClient();

const seedUsers = Array.from({ length: 12 }, (_, index) => ({ id: `cost${index}`, customer: 'root' }));

/**
 * A customer with 3,000 SIMs whose sim_scope items are padded to about 1 KB, so that they
 * fill four 1 MB query pages, more than 20,000 real ones (about 9,300 per page) fill, at a
 * fraction of the load time. Full SIM items are written only for the pages the tests list.
 */
const loadBigCustomer = async (db: DynamoDBDocumentClient, tableName: string, fullSims: number[]) => {
  const items: Record<string, unknown>[] = [
    {
      ...key.customer(big.customer), GSI1PK: `CUSTOMER_NAME#Big Ltd`, GSI1SK: `CUSTOMER#${big.customer}`,
      type: 'customer', id: big.customer, name: 'Big Ltd', parent: null, path: [big.customer], sms_enabled: true,
    },
  ];
  for (let index = 0; index < big.sims; index += 1) {
    const id = big.firstId + index;
    items.push({
      ...key.simScope(big.customer, id), type: 'sim_scope', sim_id: id, owner_id: big.customer,
      status: index % 2 === 0 ? 'active' : 'suspended', updated_at_ms: start - 3_600_000, padding: 'x'.repeat(1_000),
    });
  }
  for (const id of fullSims) {
    items.push({
      ...key.sim(id), GSI1PK: `ICCID#89${id}`, GSI1SK: 'SIM', type: 'sim', id, iccid: `89${id}`, msisdn: null,
      status: (id - big.firstId) % 2 === 0 ? 'active' : 'suspended', connection_status: 'active',
      customer_id: big.customer, customer_name: 'Big Ltd', customer_path: [big.customer], tariff_name: null,
      data_used_mb: '1.00', data_overage_mb: '0.00', base_cost: '1.00', overage_cost: '0.00', data_bundle: null,
      updated_at: '2026-11-20T09:00:00+00:00', updated_at_ms: start - 3_600_000,
    });
  }
  const batches: Record<string, unknown>[][] = [];
  for (let index = 0; index < items.length; index += 25) batches.push(items.slice(index, index + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let pending = batches[next++]!.map((Item) => ({ PutRequest: { Item } }));
      while (pending.length > 0) {
        const output = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (output.UnprocessedItems?.[tableName] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
};

const lastPageIds = Array.from({ length: 20 }, (_, index) => big.firstId + big.sims - 20 + index);
const firstPageIds = Array.from({ length: 100 }, (_, index) => big.firstId + index);
// Page 75 of 20 of the active SIMs (every other one): the last 40 ids, even offsets.
const activeLastPageIds = Array.from({ length: 20 }, (_, index) => big.firstId + big.sims - 40 + 2 * index);

beforeAll(async () => {
  const document = areaASeed(start, [...seedUsers, { id: 'bigdev', customer: 'big' }, { id: 'bigdev2', customer: 'big' }, { id: 'bigdev3', customer: 'big' }]);
  // The big customer is written directly below; the seed only needs to know it for its users and key.
  document.customers.push({ id: big.customer, name: 'Big Ltd', parent: null, sms_enabled: true } as never);
  document.api_keys.push({ key: apiKeyOf(big.customer), customer: big.customer, revoked: false });
  const seeded = await tableWithSeed(document, clock);
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  await loadBigCustomer(db, seeded.tableName, [...new Set([...firstPageIds, ...lastPageIds, ...activeLastPageIds])]);
  counter = countCalls(db);
  deps = { db, tableName: seeded.tableName, now: () => clock.now };
  handlers = areaAHandlers(deps);
}, 180_000);

afterAll(() => client.destroy());

const as = (user: string, customer = 'root') => ({ Authorization: `Bearer ${tokenOf(user)}`, 'X-Customer-API-Key': apiKeyOf(customer) });

/** The calls of one request: operation names in start order, and the round trips. */
const measure = async (path: string, headers: Record<string, string>) => {
  counter.reset();
  const answer = await invoke(handlers, path, { headers });
  const calls = [...counter.calls].sort((left, right) => left.startedAt - right.startedAt);
  return { answer, calls, commands: calls.map((call) => call.command), rounds: counter.roundTrips() };
};

/** The SIM ids of the full SIM items a request read (BatchGetItem / GetItem of `SIM#` keys). */
const fullSimReads = (calls: CallCounter['calls']): number[] =>
  calls.flatMap((call) => {
    const input = call.input as { RequestItems?: Record<string, { Keys: { PK: string }[] }>; Key?: { PK: string } };
    const keys = input.RequestItems ? Object.values(input.RequestItems).flatMap((entry) => entry.Keys) : input.Key ? [input.Key] : [];
    return keys.filter((itemKey) => String(itemKey.PK).startsWith('SIM#')).map((itemKey) => Number(String(itemKey.PK).slice(4)));
  });

describe('DynamoDB calls per request', () => {
  it('reads a SIM in 3 calls and 2 round trips: auth BatchGet, then the rate-limit update beside the SIM GetItem', async () => {
    const { answer, commands, calls, rounds } = await measure('/developer/api/sims/1001/', as('cost0'));
    expect(answer.status).toBe(200);
    expect(commands.slice(0, 1)).toEqual(['BatchGetItemCommand']);
    expect([...commands.slice(1)].sort()).toEqual(['GetItemCommand', 'UpdateItemCommand']);
    expect(rounds).toBe(2);
    expect(calls[0]!.input).toMatchObject({
      RequestItems: { [deps.tableName]: { ConsistentRead: true, Keys: [key.bearerToken('cost0tok'), key.apiKey('rootkey')] } },
    });
  });

  it('answers a refused SIM read (429) in 1 round trip: the rate-limit item read instead of written, no SIM read', async () => {
    for (let index = 0; index < 10; index += 1) await invoke(handlers, '/developer/api/sims/1001/', { headers: as('cost1') });
    const { answer, commands, calls, rounds } = await measure('/developer/api/sims/1001/', as('cost1'));
    expect([answer.status, (answer.body as { code: string }).code]).toEqual([429, 'rate_limited_burst']);
    // This container saw the item full on its last answer: one consistent read confirms it (beside the
    // authentication read: the credentials were verified here before), nothing is written, the SIM is not read.
    expect([...commands].sort()).toEqual(['BatchGetItemCommand', 'GetItemCommand']);
    expect(fullSimReads(calls)).toEqual([]);
    expect(rounds).toBe(1);
  });

  it('makes no SIM read for a refused list (429 poll interval): auth and one read of the rate-limit item only, in 1 round trip', async () => {
    expect((await invoke(handlers, '/developer/api/sims/', { headers: as('cost2') })).status).toBe(200);
    clock.now += 1_000;
    const { answer, commands, rounds } = await measure('/developer/api/sims/?status=active', as('cost2'));
    expect([answer.status, (answer.body as { code: string }).code]).toEqual([429, 'rate_limited_poll_interval']);
    // The same credentials were verified by the first request: auth read and rate-limit read at once.
    expect([...commands].sort()).toEqual(['BatchGetItemCommand', 'GetItemCommand']);
    expect(rounds).toBe(1);
  });

  it('lists a small scope in 4 round trips: auth, rate limit, scope queries, one BatchGet of the page', async () => {
    const { answer, commands, calls, rounds } = await measure('/developer/api/sims/?page_size=2&page=2', as('cost3'));
    expect(answer.body).toMatchObject({ count: 5, page: 2, total_pages: 3 });
    expect(commands).toEqual(['BatchGetItemCommand', 'UpdateItemCommand', 'QueryCommand', 'QueryCommand', 'QueryCommand', 'BatchGetItemCommand']);
    expect(rounds).toBe(4);
    expect(fullSimReads(calls)).toEqual([2001, 3001]);
  });

  it('resolves a customer filter beside the rate-limit update, adding no round trip', async () => {
    const { answer, commands, rounds } = await measure('/developer/api/sims/?customer=North%20Ltd', as('cost4'));
    expect(answer.body).toMatchObject({ count: 1 });
    expect(commands.slice(0, 1)).toEqual(['BatchGetItemCommand']);
    expect([...commands.slice(1, 3)].sort()).toEqual(['QueryCommand', 'UpdateItemCommand']);
    expect(rounds).toBe(4);
  });

  describe('a scope larger than three 1 MB pages', () => {
    it.each([
      ['the last page', `?page=150&page_size=20`, big.sims, lastPageIds],
      ['the first page of 100', `?page_size=100`, big.sims, firstPageIds],
      ['a filtered page', `?status=active&page=75&page_size=20`, big.sims / 2, activeLastPageIds],
      ['a customer-filtered page', `?customer=Big%20Ltd&page=150&page_size=20`, big.sims, lastPageIds],
    ])('answers %s in at most 5 round trips, reading full items only for the SIMs it returns', async (_case, query, count, ids) => {
      clock.now += 10_000;
      const user = ['bigdev', 'bigdev2', 'bigdev3'][Math.floor(Math.random() * 3)]!;
      const { answer, calls, rounds } = await measure(`/developer/api/sims/${query}`, as(user, big.customer));
      expect(answer.status).toBe(200);
      const body = answer.body as { count: number; results: { id: number }[] };
      expect(body.count).toBe(count);
      expect(body.results.map((sim) => sim.id)).toEqual(ids);
      expect(fullSimReads(calls).sort()).toEqual([...ids].sort());
      expect(calls.filter((call) => call.command === 'BatchGetItemCommand').length).toBe(2); // auth + the page
      expect(rounds).toBeLessThanOrEqual(5);
      // More than one page of scope items was read, so the cost came from the split, not from size.
      const scopeQueries = calls.filter((call) => call.command === 'QueryCommand' && !(call.input as { IndexName?: string }).IndexName);
      expect(scopeQueries.length).toBeGreaterThan(3);
    });
  });
});
