import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billedReadUnits, countCalls, type CallCounter } from '../../shared/db/call-counter';
import type { DeveloperDeps } from '../../shared/http/developer-route';
import { areaAHandlers, invoke, tableWithSeed, type TestClock } from '../area-a/support/invoke';
import { testDocumentClient, testDynamoClient } from '../support/resources';
import { fleetSim, treeOf } from './support/fleet';

/**
 * A1 at any size (issue #19, point 1): two customer groups of very different sizes in one
 * table answer the same page of the same filter in the same number of round trips and read
 * units (DynamoDB's ReturnConsumedCapacity as DynamoDB Local reports it, with the minimum a read
 * request is billed: call-counter's billedReadUnits), and within the
 * bounds: at most 4 sequential round trips and 120 read units, authentication included.
 *
 * The big group's first 1,000 SIMs are the small group's (same owners, statuses and update
 * times relative to its ids), the rest come after them in id and in time, so that the pages
 * compared fall in buckets of the same fill in both: what differs is only how many SIMs there
 * are after them.
 *
 * It writes thousands of items: @dynamodb-local-of-its-own (test/support/dynamodb-lease.ts).
 */

const day = 86_400_000;
const now = Date.UTC(2026, 10, 25, 12, 0, 0);
const clock: TestClock = { now };
/** Five daily runs of usage updates, at 02:00 on each of the five days before `now`. */
const runDay = (run: number) => Math.floor(now / day) * day - (5 - run) * day + 2 * 3_600_000;
const statuses = ['active', 'suspended', 'active', 'inactive', 'trial', 'active', 'stock'];

const groups = [
  { prefix: 'sm', sims: 1_000, firstId: 1 },
  { prefix: 'bg', sims: 10_000, firstId: 100_001 },
] as const;

const fleetOf = (prefix: string, count: number, firstId: number) => {
  const tree = treeOf(prefix);
  const owners = [0, 1, 2, 3, 4, 5, 3, 4, 5].map((index) => tree[index]!.id);
  return {
    customers: tree.map((customer) => ({ ...customer, sms_enabled: true })),
    sims: Array.from({ length: count }, (_, index) =>
      fleetSim(firstId + index, owners[index % owners.length]!, runDay(index % 5) + index, statuses[index % statuses.length]),
    ),
  };
};

const token = (prefix: string) => `bearer_${prefix}dev_Secret${prefix}0123456789abcdefgh`;
const apiKey = (prefix: string) => `devkey_${prefix}key_Secret${prefix}0123456789abcdefgh`;

let handlers: ReturnType<typeof areaAHandlers>;
let counter: CallCounter;
const client = testDynamoClient();

beforeAll(async () => {
  const fleets = groups.map((group) => fleetOf(group.prefix, group.sims, group.firstId));
  const document = {
    customers: fleets.flatMap((fleet) => fleet.customers),
    users: groups.map((group) => ({ id: `${group.prefix}-dev`, email: `dev@${group.prefix}.example`, customer: group.prefix, active: true, roles: ['developer'] })),
    bearer_tokens: groups.map((group) => ({ token: token(group.prefix), user: `${group.prefix}-dev`, revoked: false })),
    api_keys: groups.map((group) => ({ key: apiKey(group.prefix), customer: group.prefix, revoked: false })),
    sims: fleets.flatMap((fleet) => fleet.sims),
  };
  const seeded = await tableWithSeed(document, clock);
  const db = testDocumentClient(client);
  counter = countCalls(db, { capacity: true });
  const deps: DeveloperDeps = { db, tableName: seeded.tableName, now: () => clock.now };
  handlers = areaAHandlers(deps);
}, 180_000);

afterAll(() => client.destroy());

/** Round trips, read units and the answer of one request (the clock moves on, past the poll interval). */
const measure = async (prefix: string, query: string) => {
  clock.now += 10_000;
  counter.reset();
  const answer = await invoke(handlers, `/developer/api/sims/?${query}`, {
    headers: { Authorization: `Bearer ${token(prefix)}`, 'X-Customer-API-Key': apiKey(prefix) },
  });
  const reads = counter.calls.filter((call) => ['GetItemCommand', 'BatchGetItemCommand', 'QueryCommand'].includes(call.command));
  const body = answer.body as { count: number; results: unknown[] };
  return { status: answer.status, results: body.results?.length, rounds: counter.roundTrips(), readUnits: reads.reduce((sum, call) => sum + billedReadUnits(call), 0) };
};

const iso = (epochMs: number) => encodeURIComponent(new Date(epochMs).toISOString());
const filters = (prefix: string) => {
  const customer = `customer=${encodeURIComponent(`${prefix} A1`)}`;
  const between = `updated_after=${iso(runDay(2) - 3_600_000)}`;
  return [
    '',
    'status=suspended',
    customer,
    `${customer}&status=active`,
    `updated_after=${iso(runDay(0) - 3_600_000)}`,
    between,
    `${between}&status=suspended`,
    `${between}&${customer}`,
    `${between}&${customer}&status=active`,
  ];
};

describe('A1 on groups of very different sizes', () => {
  it.each([
    ['the first page', 'page=1&page_size=10'],
    ['the second page', 'page=2&page_size=10'],
    ['a page beyond the end', 'page=100000&page_size=100'],
  ])('answers %s of every filter in the same round trips and read units for 1,000 and 10,000 SIMs, within 4 and 120', async (_case, paging) => {
    for (let index = 0; index < filters('sm').length; index += 1) {
      const small = await measure('sm', [filters('sm')[index], paging].filter(Boolean).join('&'));
      const big = await measure('bg', [filters('bg')[index], paging].filter(Boolean).join('&'));
      const label = `${filters('sm')[index]} ${paging}`;
      expect([small.status, big.status], label).toEqual([200, 200]);
      expect(big.results, label).toBe(small.results);
      expect({ rounds: big.rounds, readUnits: big.readUnits }, label).toEqual({ rounds: small.rounds, readUnits: small.readUnits });
      expect(big.rounds, label).toBeLessThanOrEqual(4);
      expect(big.readUnits, label).toBeLessThanOrEqual(120);
    }
  });
});
