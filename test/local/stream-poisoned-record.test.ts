import { readFileSync } from 'node:fs';
import { PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycleUrlOf } from '../../local/console/sections/webhooks';
import { readStreamFailures } from '../../local/stream-failure-queues';
import { key } from '../../shared/db/keys';
import { readList } from '../../shared/sim-lists/read-list';
import { captureLogLines, logEntries, type LogCapture } from '../support/log-lines';
import { eventually } from '../support/eventually';
import { fetchFromRuntime } from '../support/request';
import { testDocumentClient, testDynamoClient } from '../support/resources';
import { useTestRuntime } from '../support/runtime';

/**
 * A table-stream consumer never stalls on one record (issue #31, point 5), over the real local
 * runtime (its stream reader invokes the same handlers as the deployed event source mappings):
 * SIM items that make both consumers throw are written straight into the table, as an older
 * version, a hand edit or a bug could, and then another tenant's SIM changes. That change's
 * lifecycle event reaches the subscribed webhook, and its list change shows in A1, within 10
 * seconds; the poisoned records are set aside with their reasons (each consumer's failure
 * queue, an ERROR line, the developer console), and the changes before and after them in one
 * batch apply in order.
 */

const seed: unknown = JSON.parse(readFileSync(new URL('../../local/demo-seed.json', import.meta.url), 'utf8'));
/** Gina, a developer of globex, with globex's API key (local/demo-seed.json). */
const globex = {
  Authorization: 'Bearer bearer_demo04_yl9F6sn23DSp8kVzjliKE1QufhQNB9reosfhypnX',
  'X-Customer-API-Key': 'devkey_demo03_NzuNGrTFhxhavBToSo2IeJKfLjG7A0nIQoCWVGPq',
};
/** Ada, a developer of acme, with acme's API key. */
const acme = {
  Authorization: 'Bearer bearer_demo01_KGpOyQNcdOyZbkBFTFoOxtzHq8STZHE6svi34zWH',
  'X-Customer-API-Key': 'devkey_demo01_u4rEE7naW8mHDKw3OaWDyyIdYxWDsU78E9kcE3oE',
};
const iccidOf = (id: number) => `894450000000000${id}`;

const db = testDocumentClient();
let capture: LogCapture;
const runtime = useTestRuntime({ seed }, { stopAfter: () => db.destroy() });

beforeAll(async () => {
  // Both tenants subscribe: an event of acme's poisoned SIMs would have a subscriber to go to.
  for (const caller of [globex, acme]) {
    const subscribed = await fetchFromRuntime(`${runtime.baseUrl}/developer/api/webhooks/`, {
      method: 'POST',
      headers: { ...caller, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: lifecycleUrlOf(runtime.inbox.url), events: ['line.suspended', 'line.activated'] }),
    });
    expect(subscribed.status).toBe(201);
  }
  capture = captureLogLines();
});
afterAll(() => capture?.restore());

/** A SIM of acme as the table holds it, copied under another id, with `poison` over it: what an earlier version or a hand edit could have written. */
const poisonedSim = async (id: number, poison: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const template = (await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.sim(1001) }))).Item!;
  return { ...template, ...key.sim(id), id, iccid: iccidOf(id), GSI1PK: undefined, GSI1SK: undefined, msisdn: null, ...poison };
};

/** Writes a SIM item straight into the table, past every write path; `attributes` are given marshalled (a map key `__proto__`). */
const putRaw = async (item: Record<string, unknown>, attributes: Record<string, AttributeValue> = {}) => {
  const client = testDynamoClient();
  await client.send(new PutItemCommand({ TableName: runtime.tableName, Item: { ...marshall(item, { removeUndefinedValues: true }), ...attributes } }));
  client.destroy();
};

/** Changes a SIM's status as any writer does (POST /_local/sims/{iccid}: shared/sims/change-sim.ts). */
const changeStatus = async (id: number, status: string) => {
  const answer = await fetch(`${runtime.baseUrl}/_local/sims/${iccidOf(id)}`, { method: 'POST', body: JSON.stringify({ status }), headers: { 'Content-Type': 'application/json' } });
  expect(answer.status).toBe(200);
};

/** The lifecycle events the inbox received for one SIM, by type. */
const eventsOf = (id: number): string[] =>
  runtime.inbox
    .deliveries()
    .filter((delivery) => delivery.path === '/lifecycle')
    .map((delivery) => JSON.parse(delivery.body) as { type: string; data: { iccid: string } })
    .filter((event) => event.data.iccid === iccidOf(id))
    .map((event) => event.type);

/** The ids on the first page of globex's A1 list of suspended SIMs, read from the list index as A1 reads it. */
const suspendedOfGlobex = async (): Promise<number[]> =>
  (await readList({ db, tableName: runtime.tableName }, { groupId: 'globex', customerId: 'globex', direct: false, status: 'suspended', page: 1, pageSize: 100 }))?.ids ?? [];

/** What the consumers' failure queues hold, by consumer: the keys and reasons of the records set aside. */
const setAside = async () =>
  (await readStreamFailures(runtime.sqsEndpoint, runtime.streamFailureQueues))
    .map((message) => message.body as { kind?: string; consumer: string; keys: { PK: string }; reason: string })
    .filter((body) => body.kind === 'stream-record-set-aside');

describe('a poisoned SIM item in the table', () => {
  it("delays another tenant's lifecycle event and list change by less than 10 seconds, and is set aside with its reason", async () => {
    // Two items each consumer throws on: a customer path that is text, not a list; and a SIM
    // listed by the index whose usage is not an amount (and whose list positions carry the
    // key `__proto__`, which the local reader once could not even hand over).
    await putRaw(await poisonedSim(5001, { customer_path: 'acme', status: 'active' }));
    await putRaw(await poisonedSim(5002, { status: 'active', data_used_mb: '4.25.00', listed_at_ms: Date.now(), list_pos: undefined }), {
      list_pos: { M: Object.fromEntries([['__proto__', { S: '20261125#1' }], ['acme', { S: '20261125#2' }]]) },
    });

    const changed = Date.now();
    await changeStatus(1029, 'suspended');
    await eventually(() => expect(eventsOf(1029)).toEqual(['line.suspended']), 15_000);
    const eventAfter = Date.now() - changed;
    await eventually(async () => expect(await suspendedOfGlobex()).toContain(1029), 15_000);
    const listAfter = Date.now() - changed;
    expect({ eventAfter: eventAfter < 10_000, listAfter: listAfter < 10_000 }).toEqual({ eventAfter: true, listAfter: true });

    // A1 itself lists the change.
    const listed = await fetchFromRuntime(`${runtime.baseUrl}/developer/api/sims/?status=suspended`, { headers: globex });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { results: { id: number }[] }).results.map((sim) => sim.id)).toContain(1029);

    // Each consumer set both records aside, with the reason, on its own failure queue.
    const entries = await eventually(async () => {
      const found = await setAside();
      expect(found.map((entry) => `${entry.consumer} ${entry.keys.PK}`).sort()).toEqual([
        'maintain-sim-lists SIM#5001',
        'maintain-sim-lists SIM#5002',
        'publish-lifecycle-events SIM#5001',
        'publish-lifecycle-events SIM#5002',
      ]);
      return found;
    });
    const reasonOf = (consumer: string, pk: string) => entries.find((entry) => entry.consumer === consumer && entry.keys.PK === pk)!.reason;
    expect(reasonOf('publish-lifecycle-events', 'SIM#5001')).toBe('MalformedItem: sim SIM#5001: customer_path must be a non-empty list of customer ids, not string "acme"');
    expect(reasonOf('maintain-sim-lists', 'SIM#5001')).toBe('MalformedItem: sim SIM#5001: customer_path must be a non-empty list of customer ids, not string "acme"');
    expect(reasonOf('publish-lifecycle-events', 'SIM#5002')).toMatch(/4\.25\.00/);
    expect(reasonOf('maintain-sim-lists', 'SIM#5002')).toMatch(/4\.25\.00/);

    // The log says so at ERROR, once per consumer and record, with the reason.
    const lines = logEntries(capture.lines()).filter((line) => line.message === 'stream record set aside');
    expect(lines.map((line) => [line.level, line.consumer, (line.keys as { PK: string }).PK, line.reason]).sort()).toEqual(
      entries.map((entry) => ['ERROR', entry.consumer, entry.keys.PK, entry.reason]).sort(),
    );
    // Nothing was given up after retries: the batches never failed.
    expect(logEntries(capture.lines()).filter((line) => line.message === 'stream consumer failed' || String(line.message).startsWith('stream record given up'))).toEqual([]);
  }, 60_000);

  it('lets the changes before and after it in one batch apply, in order', async () => {
    // Held, the reader hands the three changes on in one batch to each consumer.
    runtime.stream.hold();
    await changeStatus(1026, 'suspended');
    await putRaw(await poisonedSim(5003, { customer_path: [], status: 'suspended' }));
    await changeStatus(1026, 'active');
    await changeStatus(1029, 'active');
    runtime.stream.release();

    // (Deliveries run concurrently: their order is not the events' order.)
    await eventually(() => expect([eventsOf(1026).sort(), eventsOf(1029).sort()]).toEqual([['line.activated', 'line.suspended'], ['line.activated', 'line.suspended']]), 15_000);
    await eventually(async () => expect(await suspendedOfGlobex()).toEqual([]), 15_000);
    await eventually(async () => expect((await setAside()).filter((entry) => entry.keys.PK === 'SIM#5003').map((entry) => entry.consumer).sort()).toEqual(['maintain-sim-lists', 'publish-lifecycle-events']));
  }, 60_000);

  it('shows in the developer console: which consumer, when, the keys and the reason', async () => {
    const page = await (await fetch(runtime.consoleUrl)).text();
    const section = page.slice(page.indexOf('id="stream-failures"'), page.indexOf('id="inbox"'));
    expect(section).toContain('Set aside by <code>maintain-sim-lists</code>: <code>PK=SIM#5001 SK=SIM</code>');
    expect(section).toContain('Set aside by <code>publish-lifecycle-events</code>: <code>PK=SIM#5003 SK=SIM</code>');
    expect(section).toContain('<dt>Reason</dt><dd>MalformedItem: sim SIM#5001: customer_path must be a non-empty list of customer ids, not string &quot;acme&quot;</dd>');
    expect(section).toMatch(/<dt>When<\/dt><dd>\d{4}-\d\d-\d\dT/);
    expect(section).toContain('<dt>Item type</dt><dd>sim</dd>');
  });
});
