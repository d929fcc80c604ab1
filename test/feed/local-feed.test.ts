import { mkdtempSync, writeFileSync } from 'node:fs';
import { fetchFromRuntime } from '../support/request';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../admin/cli';
import { key } from '../../shared/db/keys';
import { readGroupDirectory } from '../../shared/groups/directory';
import { testDynamoClient, testSqsClient } from '../support/resources';
import { lifecycleUrlOf } from '../../local/console/sections/webhooks';
import { demoCredentials } from '../../local/demo-credentials';
import { useTestRuntime } from '../support/runtime';
import { eventually } from '../support/eventually';

/**
 * The operator feed under the local runtime (issue #20, points 2, 4, 5 and 6): `POST
 * /_local/feed` queues records for the consumer the deployed queue invokes, the records apply
 * within seconds, lifecycle events follow from the stream once per real change, concurrent
 * usage of SIMs of one pool keeps the pool's sum exact, the console and `feed-rejections` list
 * the refused lines, and `admin feed` sends a file in numbered messages, resumable.
 *
 * It writes thousands of items: @dynamodb-local-of-its-own (test/support/dynamodb-lease.ts).
 */

const seed: unknown = JSON.parse(readFileSync(new URL('../../local/demo-seed.json', import.meta.url), 'utf8'));
const credentials = demoCredentials(seed);
const developer = { Authorization: `Bearer ${credentials.bearerToken}`, 'X-Customer-API-Key': credentials.apiKey! };
const month = new Date().toISOString().slice(0, 7);
const iccid = (id: number) => `89445000000000${String(id).padStart(5, '0')}`;
const at = (second: number) => new Date(Date.UTC(2026, 10, 25, 12, 0, second)).toISOString();
const usage = (id: number, second: number, used: string) => ({
  type: 'usage', source_time: at(second), iccid: iccid(id), month, data_used_mb: used, data_overage_mb: '0.00', overage_cost: '0.00',
});

const db = DynamoDBDocumentClient.from(testDynamoClient());
const runtime = useTestRuntime({ seed }, { stopAfter: () => db.destroy() });

const post = (body: string | unknown[], init: RequestInit = {}) =>
  fetch(`${runtime.baseUrl}/_local/feed`, {
    method: 'POST',
    body: typeof body === 'string' ? body : body.map((record) => (typeof record === 'string' ? record : JSON.stringify(record))).join('\n'),
    ...init,
  });

/** A SIM as A2 answers it (Area A is rate limited: the waits below read the table instead). */
const simOf = async (id: number) => (await (await fetchFromRuntime(`${runtime.baseUrl}/developer/api/sims/${id}/`, { headers: developer })).json()) as Record<string, any>;
/** A SIM's item in the table. */
const simItem = async (id: number) => (await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.sim(id) }))).Item ?? {};

/** Lifecycle events the inbox received for one SIM, by type. */
const eventsOf = (simIccid: string) =>
  runtime.inbox
    .deliveries()
    .filter((delivery) => delivery.path === '/lifecycle')
    .map((delivery) => JSON.parse(delivery.body) as { type: string; data: { iccid: string } })
    .filter((event) => event.data.iccid === simIccid)
    .map((event) => event.type);

describe('POST /_local/feed', () => {
  it('answers 202 with the lines accepted and the lines refused, and applies the accepted ones within seconds', async () => {
    const answer = await post([usage(1005, 1, '42.00'), 'oops', { type: 'sim_status', source_time: at(1), iccid: iccid(1005), status: 'suspended' }, { type: 'usage', iccid: iccid(1005) }]);
    expect([answer.status, answer.headers.get('content-type'), await answer.json()]).toEqual([
      202,
      'application/json',
      {
        accepted: 2,
        rejected: [
          { line: 2, reason: 'the line is not JSON' },
          { line: 4, reason: 'source_time is required in a usage record' },
        ],
      },
    ]);
    await eventually(async () => expect(await simItem(1005)).toMatchObject({ data_used_mb: '42.00', status: 'suspended' }), 15_000);
    expect(await simOf(1005)).toMatchObject({ usage: { data_used_mb: '42.00' }, status: 'suspended' });
    // The journal: the batch and its refused lines (the consumer refuses them again and keeps them).
    const journal = await eventually(async () => {
      const found = (await (await fetch(`${runtime.baseUrl}/_local/feed`)).json()) as { batches: Record<string, unknown>[]; rejections: Record<string, unknown>[] };
      expect(found.batches).toHaveLength(1);
      return found;
    });
    expect(journal.batches[0]).toMatchObject({ first_line: 1, lines: 4, applied: 2, rejected: 2 });
    expect(journal.rejections.map((rejection) => [rejection.line, rejection.reason, rejection.text])).toEqual([
      [2, 'the line is not JSON', 'oops'],
      [4, 'source_time is required in a usage record', JSON.stringify({ type: 'usage', iccid: iccid(1005) })],
    ]);
  });

  it('answers 202 for lines whose type is constructor, __proto__ or toString, refusing each as an unknown type', async () => {
    const answer = await post(['{"type":"constructor","source_time":"2026-11-25T12:00:00Z"}', '{"type":"__proto__"}', '{"type":"toString","__proto__":{"x":1}}', usage(1004, 1, '4.00')]);
    const unknown = (name: string) => `type "${name}" is unknown; one of sim, sim_status, usage, customer, data_bundle`;
    expect([answer.status, await answer.json()]).toEqual([202, { accepted: 1, rejected: [1, 2, 3].map((line, index) => ({ line, reason: unknown(['constructor', '__proto__', 'toString'][index]!) })) }]);
    await eventually(async () => expect((await simItem(1004)).data_used_mb).toBe('4.00'), 15_000);
  });

  it('answers JSON errors: a body with no line, another method, another path, a body over 16 MiB', async () => {
    const bodyOf = async (response: Response) => [response.status, await response.json()];
    expect(await bodyOf(await post('\n  \n'))).toEqual([400, { detail: 'The body holds no line: send JSON Lines, one record (at most 16384 bytes) a line.', code: 'invalid_request' }]);
    const put = await fetch(`${runtime.baseUrl}/_local/feed`, { method: 'PUT', body: '{}' });
    expect([put.headers.get('allow'), ...(await bodyOf(put))]).toEqual(['GET, POST', 405, { detail: 'Method PUT is not allowed on this path; use POST (or GET for the journal).', code: 'method_not_allowed' }]);
    expect(await bodyOf(await fetch(`${runtime.baseUrl}/_local/feed/x`, { method: 'POST', body: '{}' }))).toEqual([404, { detail: 'Not found: use POST /_local/feed with a JSON Lines body.', code: 'not_found' }]);
    expect(await bodyOf(await post('x'.repeat(16 * 1024 * 1024 + 1)))).toEqual([
      413,
      { detail: 'The body must be at most 16777216 bytes; send a larger file with npm run admin -- feed FILE --queue-url URL.', code: 'payload_too_large' },
    ]);
  });
});

describe('a message that cannot be read at all', () => {
  it('fails alone and goes to the dead-letter queue after its receives; the messages beside it apply', async () => {
    const sqs = testSqsClient();
    const queue = runtime.queues['operator-feed'];
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: ' \n ' }));
    await sqs.send(new SendMessageCommand({ QueueUrl: queue.url, MessageBody: JSON.stringify(usage(1006, 1, '6.00')) }));
    await eventually(async () => expect((await simItem(1006)).data_used_mb).toBe('6.00'), 15_000);
    const dead = await eventually(async () => {
      const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queue.deadLetterUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }));
      expect(received.Messages).toHaveLength(1);
      return received.Messages![0]!;
    }, 30_000);
    expect(dead.Body).toBe(' \n ');
    sqs.destroy();
  });
});

describe('lifecycle events from feed records', () => {
  it('fire once per real change: not for a repeated record, nor for a newer one with the same values', async () => {
    const subscribed = await fetchFromRuntime(`${runtime.baseUrl}/developer/api/webhooks/`, {
      method: 'POST',
      headers: { ...developer, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: lifecycleUrlOf(runtime.inbox.url) }),
    });
    expect(subscribed.status).toBe(201);
    const sim = iccid(1008);
    await post([usage(1008, 10, '77.00'), { type: 'sim_status', source_time: at(10), iccid: sim, status: 'suspended' }]);
    await eventually(() => expect(eventsOf(sim).sort()).toEqual(['line.suspended', 'usage.updated']), 20_000);
    // The same records again, then newer ones with the same values: nothing changes.
    await post([usage(1008, 10, '77.00'), { type: 'sim_status', source_time: at(10), iccid: sim, status: 'suspended' }]);
    await post([usage(1008, 20, '77.00'), { type: 'sim_status', source_time: at(20), iccid: sim, status: 'suspended' }]);
    // A later real change of the same SIM: its event comes after anything the repeats could have made
    // (suspended to active: line.resumed beside line.activated, issue #33).
    await post([{ type: 'sim_status', source_time: at(30), iccid: sim, status: 'active' }]);
    await eventually(() => expect(eventsOf(sim)).toContain('line.activated'), 20_000);
    expect(eventsOf(sim).sort()).toEqual(['line.activated', 'line.resumed', 'line.suspended', 'usage.updated']);
  });
});

describe('usage of SIMs of one pool changed concurrently', () => {
  it("keeps the bundle's pool_used_mb the exact sum of its SIMs' figures", async () => {
    // 40 new SIMs on the pool, beside the seed's 7.
    const created = Array.from({ length: 40 }, (_, index) => ({
      type: 'sim', source_time: at(1), id: 9001 + index, iccid: iccid(9001 + index), customer: index % 2 ? 'acme-north' : 'acme-south',
      status: 'active', connection_status: 'active', data_bundle: 'b-acme-fleet',
    }));
    expect(await (await post(created)).json()).toEqual({ accepted: 40, rejected: [] });
    const pool = [1001, 1002, 1003, 1009, 1010, 1016, 1017, ...created.map((sim) => sim.id)];
    await eventually(async () => expect((await simItem(9040)).status).toBe('active'), 15_000);
    // Four writers at once, each with usage for every SIM of the pool (the latest source time wins per SIM).
    const figure = (writer: number, id: number) => `${(id % 97) + writer}.${String((id * 7 + writer) % 100).padStart(2, '0')}`;
    const answers = await Promise.all(
      [0, 1, 2, 3].map((writer) => post(pool.map((id, index) => usage(id, 100 + writer * 2 + (index % 2), figure(writer, id))))),
    );
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202]);
    // Writer 3 holds the latest source time for every SIM.
    const hundredths = pool.reduce((sum, id) => sum + Math.round(Number(figure(3, id)) * 100), 0);
    const expected = `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
    await eventually(async () => expect((await readGroupDirectory({ db, tableName: runtime.tableName }, 'acme'))?.poolUsed.get('b-acme-fleet')).toBe(BigInt(hundredths)), 30_000, 200);
    expect([(await simOf(1001)).data_bundle.pool_used_mb, (await simOf(9001)).data_bundle.pool_used_mb]).toEqual([expected, expected]);
    // Its waits (15 s, then 30 s) are longer than the suite's 30 s a test: on a busy machine the
    // stream's consumers take seconds, and the test must fail on its own waits, not on the timer.
  }, 60_000);
});

describe('the refused lines elsewhere, and admin feed', () => {
  it('shows the feed on the console and lists refused lines with admin feed-rejections', async () => {
    await post([
      { type: 'sim', source_time: at(1), id: 9999, iccid: '8944999999999999998', customer: 'nobody', status: 'active', connection_status: 'active' },
      { type: 'usage', source_time: at(1), iccid: '8944999999999999999', month, data_used_mb: '1', data_overage_mb: '0', overage_cost: '0' },
    ]);
    await eventually(async () => {
      const page = await (await fetch(runtime.consoleUrl)).text();
      expect(page).toContain('id="feed"');
      expect(page).toContain('customer nobody does not exist');
      // The usage line names a SIM not seen yet: held, shown with its ICCID.
      expect(page).toContain('<td>8944999999999999999</td>');
    }, 15_000);
    const lines: string[] = [];
    const code = await runAdmin(['feed-rejections', '--limit', '3', '--table', runtime.tableName, '--endpoint', runtime.dynamodbEndpoint], {
      env: {},
      out: (line) => lines.push(line),
      err: () => undefined,
    });
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}message \S+ line 1: customer nobody does not exist$/);
    expect(lines).toHaveLength(6);
  });

  it('admin with no flags finds this runtime by LOCAL_API_URL alone: feed (its queue too), feed-rejections and set-sim', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'feed-noflags-'));
    const file = join(folder, 'records.jsonl');
    writeFileSync(file, `${JSON.stringify(usage(1020, 1, '31.00'))}\n{"type":"usage","source_time":"${at(1)}","iccid":"${iccid(1020)}","statuss":"x"}\n`);
    const admin = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runAdmin(args, { env: { LOCAL_API_URL: runtime.baseUrl }, out: (line) => out.push(line), err: (line) => err.push(line) });
      return { code, out, err };
    };
    const found = `Local runtime at ${runtime.baseUrl}: table ${runtime.tableName} on ${runtime.dynamodbEndpoint}`;
    expect(await admin('feed', file)).toEqual({
      code: 0,
      out: [`Sent lines 1 to 2 of ${file} in 1 message`],
      err: [found, '[##############################] 100% sending 2 lines in 1 message (0.0 of 0.0 MiB)'],
    });
    await eventually(async () => expect((await simItem(1020)).data_used_mb).toBe('31.00'), 15_000, 200);
    const rejections = await eventually(async () => {
      const listed = await admin('feed-rejections', '--limit', '100');
      expect(listed.out.filter((line) => line.includes(`${file}`) || line.endsWith('line 2: unknown field "statuss" in a usage record'))).toHaveLength(1);
      return listed;
    }, 15_000);
    expect(rejections).toMatchObject({ code: 0, err: [found] });
    expect(await admin('set-sim', iccid(1020), '--status', 'suspended')).toMatchObject({ code: 0, err: [found] });
    expect((await simItem(1020)).status).toBe('suspended');
  });

  it('sends a file in messages of whole numbered lines, and goes on from a line', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'feed-file-'));
    const file = join(folder, 'usage.jsonl');
    // 2,000 lines (some 350 KB): usage of ten SIMs rising in turn, a refused line at 1,500.
    const sims = [1021, 1022, 1023, 1024, 1025, 1026, 1027, 1028, 1029, 1030];
    const records = Array.from({ length: 2_000 }, (_, index) =>
      index === 1_499 ? '{"type":"usage"}' : JSON.stringify(usage(sims[index % 10]!, 200 + index, `${index}.00`)),
    );
    writeFileSync(file, `${records.join('\n')}\n`);
    const run = async (...extra: string[]) => {
      const out: string[] = [];
      const code = await runAdmin(['feed', file, '--queue-url', runtime.queues['operator-feed'].url, '--sqs-endpoint', runtime.sqsEndpoint, ...extra], {
        env: {},
        out: (line) => out.push(line),
        err: () => undefined,
      });
      return [code, out];
    };
    expect(await run('--from-line', '1001')).toEqual([0, [`Sent lines 1001 to 2000 of ${file} in 3 messages`]]);
    // Each SIM ends with its last line's figures (lines 1991 to 2000).
    await eventually(async () => expect(await Promise.all(sims.map(async (id) => (await simItem(id)).data_used_mb))).toEqual(sims.map((_, index) => `${1990 + index}.00`)), 30_000, 200);
    const journal = await eventually(async () => {
      const found = (await (await fetch(`${runtime.baseUrl}/_local/feed`)).json()) as { batches: { first_line: number; lines: number }[]; rejections: { line: number; reason: string }[] };
      const fromFile = found.batches.filter((batch) => batch.first_line >= 1001).sort((left, right) => left.first_line - right.first_line);
      expect(fromFile.reduce((sum, batch) => sum + batch.lines, 0)).toBe(1000);
      return { ...found, fromFile };
    }, 20_000);
    expect(journal.fromFile[0]!.first_line).toBe(1001);
    expect(journal.rejections.find((rejection) => rejection.line === 1500)).toMatchObject({ reason: 'source_time is required in a usage record' });
    expect(await run('--from-line', 'x')).toEqual([2, []]);
  });
});
