import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { key } from '../../shared/db/keys';
import type { DeveloperDeps } from '../../shared/http/developer-route';
import { consumeRateLimit } from '../../shared/rate-limit/rate-limit';
import { apiKeyOf, areaASeed, tokenOf } from './support/seed';
import { areaAHandlers, invoke, rateHeaders, tableWithSeed, type TestClock } from './support/invoke';

// A clock at the start of an hour (so every window starts together) that the tests move by hand.
const hourStart = Date.UTC(2026, 10, 20, 10, 0, 0);
const clock: TestClock = { now: hourStart };
let deps: DeveloperDeps;
let handlers: ReturnType<typeof areaAHandlers>;

const users = ['limits', 'burst', 'edge', 'minute', 'hour', 'poll', 'pollwait', 'parallel', 'stale', 'headers', 'ttl'];

beforeAll(async () => {
  const seeded = await tableWithSeed(areaASeed(hourStart, users.map((id) => ({ id, customer: 'root' }))), clock);
  deps = seeded.deps;
  handlers = areaAHandlers(deps);
});

const at = (offsetMs: number, userId: string, list = false) => {
  clock.now = hourStart + offsetMs;
  return consumeRateLimit(deps, { userId, customerId: 'root', list });
};

const stored = async (userId: string) =>
  (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key.rateLimit(userId, 'root'), ConsistentRead: true })))
    .Item as Record<string, unknown>;

const refusal = (outcome: Awaited<ReturnType<typeof consumeRateLimit>>) =>
  outcome.rejection && {
    status: outcome.rejection.status,
    code: outcome.rejection.code,
    detail: outcome.rejection.detail,
    extra: outcome.rejection.extra,
    headers: outcome.rejection.headers,
  };

describe('rate limits (domain, controlled clock)', () => {
  it('admits a first request and reports what remains of each window', async () => {
    const outcome = await at(0, 'limits');
    expect(outcome).toEqual({ headers: rateHeaders({ burst: 9, minute: 59, hour: 1499 }) });
  });

  it('refuses the 11th request of any 10 seconds with rate_limited_burst, without counting it', async () => {
    for (let index = 0; index < 10; index += 1) expect((await at(3_000, 'burst')).rejection).toBeUndefined();
    const refused = await at(3_000, 'burst');
    expect(refused.headers).toEqual(rateHeaders({ burst: 0, minute: 50, hour: 1490 }));
    expect(refusal(refused)).toEqual({
      status: 429,
      code: 'rate_limited_burst',
      detail: 'Rate limit exceeded: at most 10 requests per 10 seconds.',
      extra: { retry_after_seconds: 10 },
      headers: { 'Retry-After': '10' },
    });
    // A clock mark (10 s) changes nothing: the window trails. 1 ms before the ten leave it: still "retry after 1".
    expect(refusal(await at(10_000, 'burst'))?.extra).toEqual({ retry_after_seconds: 3 });
    expect(refusal(await at(12_999, 'burst'))?.extra).toEqual({ retry_after_seconds: 1 });
    // The refusals changed nothing: 10 s after the ten, the next is admitted, with 11 of the minute's 60 used.
    expect(await at(13_000, 'burst')).toEqual({ headers: rateHeaders({ burst: 9, minute: 49, hour: 1489 }) });
  });

  it('does not admit 10 more just after a clock mark (the edge of a fixed window)', async () => {
    const before = await Promise.all(Array.from({ length: 10 }, () => at(29_900, 'edge')));
    expect(before.every((outcome) => outcome.rejection === undefined)).toBe(true);
    const after = await Promise.all(Array.from({ length: 10 }, () => at(30_050, 'edge')));
    expect(after.map((outcome) => outcome.rejection?.code)).toEqual(Array(10).fill('rate_limited_burst'));
    expect(after[0]!.rejection?.extra).toEqual({ retry_after_seconds: 10 });
  });

  it('refuses a request over 60 in any minute with rate_limited_minute until the oldest leaves the minute', async () => {
    for (let window = 0; window < 6; window += 1) {
      const outcomes = await Promise.all(Array.from({ length: 10 }, () => at(60_000 + window * 10_000, 'minute')));
      expect(outcomes.every((outcome) => outcome.rejection === undefined)).toBe(true);
    }
    // At 1:52 the last ten seconds and the last minute are both full; both free up at 2:00: the minute answers.
    const refused = await at(112_000, 'minute');
    expect(refused.headers).toEqual(rateHeaders({ burst: 0, minute: 0, hour: 1440 }));
    expect(refusal(refused)).toEqual({
      status: 429,
      code: 'rate_limited_minute',
      detail: 'Rate limit exceeded: at most 60 requests per minute.',
      extra: { retry_after_seconds: 8 },
      headers: { 'Retry-After': '8' },
    });
    // At 2:00 the ten of 1:00 have left the minute (50 remain in it) and the ten of 1:50 the burst window.
    expect(await at(120_000, 'minute')).toEqual({ headers: rateHeaders({ burst: 9, minute: 9, hour: 1439 }) });
  });

  it('refuses a request over 1,500 in an hour with rate_limited_hour until the oldest slot leaves the hour', async () => {
    // Arrange 99 full hour slots (15 requests each, the newest at 0:00) in the item directly
    // (docs/area-a.md names the attributes): 1,485 real requests would take long on DynamoDB Local.
    const slots = Object.fromEntries(
      Array.from({ length: 99 }, (_, index) => [[`h${index}`, hourStart], [`hn${index}`, 15]]).flat(),
    ) as Record<string, number>;
    await deps.db.send(new PutCommand({ TableName: deps.tableName, Item: { ...key.rateLimit('hour', 'root'), ...slots } }));
    // The 100th slot takes 15 more, 10 and then 5 (the burst window allows no more at once).
    for (const [offset, count] of [[1_500_000, 10], [1_510_000, 5]] as const) {
      const outcomes = await Promise.all(Array.from({ length: count }, () => at(offset, 'hour')));
      expect(outcomes.every((outcome) => outcome.rejection === undefined)).toBe(true);
    }
    const refused = await at(1_520_000, 'hour');
    expect(refused.headers).toEqual(rateHeaders({ burst: 10, minute: 45, hour: 0 }));
    expect(refusal(refused)).toEqual({
      status: 429,
      code: 'rate_limited_hour',
      detail: 'Rate limit exceeded: at most 1500 requests per hour.',
      extra: { retry_after_seconds: 2_080 },
      headers: { 'Retry-After': '2080' },
    });
    // One hour after 0:00 the 99 slots are free again: 1,485 requests left the hour at once.
    expect(await at(3_600_000, 'hour')).toEqual({ headers: rateHeaders({ burst: 9, minute: 59, hour: 1484 }) });
  });

  it('admits exactly 10 of 30 concurrent requests', async () => {
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => at(20_000, 'parallel')));
    expect(outcomes.filter((outcome) => !outcome.rejection).length).toBe(10);
    expect(new Set(outcomes.flatMap((outcome) => (outcome.rejection ? [outcome.rejection.code] : [])))).toEqual(
      new Set(['rate_limited_burst']),
    );
    const item = await stored('parallel');
    expect(Array.from({ length: 10 }, (_, index) => item[`b${index}`])).toEqual(Array(10).fill(hourStart + 20_000));
  });

  it('refuses a list within 5 s of the previous list, without moving the interval, and admits one after 5 s', async () => {
    expect((await at(0, 'poll', true)).rejection).toBeUndefined();
    expect((await at(1_000, 'poll', false)).rejection).toBeUndefined(); // reads are not polls
    const refused = await at(4_999, 'poll', true);
    expect(refused.headers).toEqual(rateHeaders({ burst: 8, minute: 58, hour: 1498 }));
    expect(refusal(refused)).toEqual({
      status: 429,
      code: 'rate_limited_poll_interval',
      detail: 'List requests must be at least 5 seconds apart.',
      extra: { retry_after_seconds: 1 },
      headers: { 'Retry-After': '1' },
    });
    expect(refusal(await at(2_000, 'poll', true))?.extra).toEqual({ retry_after_seconds: 3 });
    // Exactly 5 s after the last admitted list (the refused ones did not move it).
    expect(await at(5_000, 'poll', true)).toEqual({ headers: rateHeaders({ burst: 7, minute: 57, hour: 1497 }) });
  });

  it('keeps a fixed set of slot attributes in the item and lets it expire an hour after the last request', async () => {
    for (let offset = 0; offset < 200 * 1_100; offset += 1_100) await at(offset, 'stale');
    const item = await stored('stale');
    const slotNames = Object.keys(item).filter((name) => /^[bmh]n?\d+$/.test(name));
    // 10 burst and 60 minute slots, and the hour slots the 200 requests took (15 each).
    expect(slotNames.filter((name) => /^b\d+$/.test(name)).length).toBe(10);
    expect(slotNames.filter((name) => /^m\d+$/.test(name)).length).toBe(60);
    expect(slotNames.filter((name) => /^h\d+$/.test(name)).length).toBe(Math.ceil(200 / 15));
    expect(item.expires_at).toBe(Math.ceil((hourStart + 199 * 1_100) / 1000) + 3_660);
  });

  it('admits again once the item is gone, although this container last saw it full', async () => {
    for (let index = 0; index < 10; index += 1) expect((await at(40_000, 'ttl')).rejection).toBeUndefined();
    expect((await at(40_000, 'ttl')).rejection?.code).toBe('rate_limited_burst');
    await deps.db.send(new DeleteCommand({ TableName: deps.tableName, Key: key.rateLimit('ttl', 'root') }));
    expect(await at(40_000, 'ttl')).toEqual({ headers: rateHeaders({ burst: 9, minute: 59, hour: 1499 }) });
  });
});

describe('rate limits through the handlers (controlled clock)', () => {
  const headersOf = (user: string) => ({ Authorization: `Bearer ${tokenOf(user)}`, 'X-Customer-API-Key': apiKeyOf('root') });

  it('answers a second list poll within 5 s with 429 rate_limited_poll_interval, and a poll after 5 s with 200', async () => {
    clock.now = hourStart + 600_000;
    expect((await invoke(handlers, '/developer/api/sims/', { headers: headersOf('pollwait') })).status).toBe(200);
    clock.now += 3_200;
    const refused = await invoke(handlers, '/developer/api/sims/?page=1', { headers: headersOf('pollwait') });
    expect(refused).toEqual({
      status: 429,
      headers: { 'Content-Type': 'application/json', 'Retry-After': '2', ...rateHeaders({ burst: 9, minute: 59, hour: 1499 }) },
      body: { detail: 'List requests must be at least 5 seconds apart.', code: 'rate_limited_poll_interval', retry_after_seconds: 2 },
      rawBody: expect.any(String),
    });
    clock.now += 1_800;
    const admitted = await invoke(handlers, '/developer/api/sims/?page_size=1', { headers: headersOf('pollwait') });
    expect(admitted.status).toBe(200);
    expect(admitted.headers).toEqual({ 'Content-Type': 'application/json', ...rateHeaders({ burst: 8, minute: 58, hour: 1498 }) });
    expect((admitted.body as { count: number }).count).toBe(5);
  });

  it('puts the six headers on 200, 400, 404 and 405 answers and counts each', async () => {
    clock.now = hourStart + 700_000;
    const headers = headersOf('headers');
    const answers = [
      await invoke(handlers, '/developer/api/sims/1001/', { headers }),
      await invoke(handlers, '/developer/api/sims/?status=lost', { headers }),
      await invoke(handlers, '/developer/api/sims/5555/', { headers }),
      await invoke(handlers, '/developer/api/nothing/', { headers }),
      await invoke(handlers, '/developer/api/sims/', { method: 'DELETE', headers }),
    ];
    expect(answers.map((answer) => [answer.status, answer.headers])).toEqual([
      [200, { 'Content-Type': 'application/json', ...rateHeaders({ burst: 9, minute: 59, hour: 1499 }) }],
      [400, { 'Content-Type': 'application/json', ...rateHeaders({ burst: 8, minute: 58, hour: 1498 }) }],
      [404, { 'Content-Type': 'application/json', ...rateHeaders({ burst: 7, minute: 57, hour: 1497 }) }],
      [404, { 'Content-Type': 'application/json', ...rateHeaders({ burst: 6, minute: 56, hour: 1496 }) }],
      [405, { 'Content-Type': 'application/json', Allow: 'GET', ...rateHeaders({ burst: 5, minute: 55, hour: 1495 }) }],
    ]);
  });
});
