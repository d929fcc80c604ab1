import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callsByRound, countCalls, type CallCounter } from '../../shared/db/call-counter';
import { key } from '../../shared/db/keys';
import type { DeveloperDeps } from '../../shared/http/developer-route';
import { apiKeyOf, areaASeed, tokenOf } from './support/seed';
import { areaAHandlers, invoke, tableWithSeed, type TestClock } from './support/invoke';
import { testDocumentClient, testDynamoClient } from '../support/resources';

/**
 * Cost targets (docs/area-a.md, "Access patterns"): how many DynamoDB calls each request makes
 * and in how many sequential round trips, counted on the handlers' own client.
 */

const start = Date.UTC(2026, 10, 20, 10, 0, 0);
const clock: TestClock = { now: start };
let deps: DeveloperDeps;
let counter: CallCounter;
let handlers: ReturnType<typeof areaAHandlers>;
const client = testDynamoClient();

const seedUsers = Array.from({ length: 12 }, (_, index) => ({ id: `cost${index}`, customer: 'root' }));

beforeAll(async () => {
  const seeded = await tableWithSeed(areaASeed(start, seedUsers), clock);
  const db = testDocumentClient(client);
  counter = countCalls(db);
  deps = { db, tableName: seeded.tableName, now: () => clock.now };
  handlers = areaAHandlers(deps);
});

afterAll(() => client.destroy());

const as = (user: string, customer = 'root') => ({ Authorization: `Bearer ${tokenOf(user)}`, 'X-Customer-API-Key': apiKeyOf(customer) });

/** The calls of one request: operation names in start order, and the round trips. */
const measure = async (path: string, headers: Record<string, string>) => {
  counter.reset();
  const answer = await invoke(handlers, path, { headers });
  const calls = [...counter.calls].sort((left, right) => left.startedAt - right.startedAt);
  return { answer, calls, commands: calls.map((call) => call.command), rounds: counter.roundTrips() };
};

/** The commands of each round trip (calls in flight together), sorted within a round. */
const byRound = (calls: CallCounter['calls']): string[][] => callsByRound(calls).map((round) => round.map((call) => call.command).sort());

/** The SIM ids of the full SIM items a request read (BatchGetItem / GetItem of `SIM#` keys). */
const fullSimReads = (calls: CallCounter['calls']): number[] =>
  calls.flatMap((call) => {
    const input = call.input as { RequestItems?: Record<string, { Keys: { PK: string }[] }>; Key?: { PK: string } };
    const keys = input.RequestItems ? Object.values(input.RequestItems).flatMap((entry) => entry.Keys) : input.Key ? [input.Key] : [];
    return keys.filter((itemKey) => String(itemKey.PK).startsWith('SIM#')).map((itemKey) => Number(String(itemKey.PK).slice(4)));
  });

describe('DynamoDB calls per request', () => {
  it('reads a SIM in 3 calls and 2 round trips: auth BatchGet, then the rate-limit update beside the BatchGet of the SIM and its group directory', async () => {
    const { answer, commands, calls, rounds } = await measure('/developer/api/sims/1001/', as('cost0'));
    expect(answer.status).toBe(200);
    expect(commands.slice(0, 1)).toEqual(['BatchGetItemCommand']);
    expect([...commands.slice(1)].sort()).toEqual(['BatchGetItemCommand', 'UpdateItemCommand']);
    expect(rounds).toBe(2);
    expect(calls[0]!.input).toMatchObject({
      RequestItems: { [deps.tableName]: { ConsistentRead: true, Keys: [key.bearerToken('cost0tok'), key.apiKey('rootkey')] } },
    });
    const read = calls.slice(1).find((call) => call.command === 'BatchGetItemCommand')!;
    expect(read.input).toMatchObject({ RequestItems: { [deps.tableName]: { Keys: [key.sim(1001), key.groupDirectory('root')] } } });
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

  it('lists a small scope in 4 round trips: auth, the rate-limit update beside the list directory, the page entries, one BatchGet of the page', async () => {
    const { answer, calls, rounds } = await measure('/developer/api/sims/?page_size=2&page=2', as('cost3'));
    expect(answer.body).toMatchObject({ count: 5, page: 2, total_pages: 3 });
    expect(rounds).toBe(4);
    expect(byRound(calls)).toEqual([
      ['BatchGetItemCommand'],
      // The directory: the group's fences and index state, the list's count pages (one Query of each
      // of its 8 count partitions) and count journal, the group's names and pools.
      ['GetItemCommand', ...Array.from({ length: 10 }, () => 'QueryCommand'), 'UpdateItemCommand'],
      // One Query per prefix of the bucket the page falls in.
      expect.arrayContaining(['QueryCommand']),
      ['BatchGetItemCommand'],
    ]);
    expect(fullSimReads(calls)).toEqual([2001, 3001]);
  });

  it('looks a customer filter up beside authentication, adding no round trip', async () => {
    const { answer, calls, rounds } = await measure('/developer/api/sims/?customer=North%20Ltd', as('cost4'));
    expect(answer.body).toMatchObject({ count: 1 });
    expect(rounds).toBe(4);
    expect(byRound(calls)[0]).toEqual(['BatchGetItemCommand', 'QueryCommand']);
    expect((calls.find((call) => call.command === 'QueryCommand')!.input as { IndexName?: string }).IndexName).toBe('GSI1');
  });

  it('answers a page beyond the end in 2 round trips: no entry and no SIM is read', async () => {
    const { answer, calls, rounds } = await measure('/developer/api/sims/?page=9&page_size=100', as('cost5'));
    expect(answer.body).toMatchObject({ count: 5, page: 9, results: [] });
    expect(rounds).toBe(2);
    expect(fullSimReads(calls)).toEqual([]);
  });
});
