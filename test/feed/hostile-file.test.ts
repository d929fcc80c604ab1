import { readFileSync } from 'node:fs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { demoCredentials } from '../../local/demo-credentials';
import { lifecycleUrlOf } from '../../local/console/sections/webhooks';
import { listFeedBatches, listFeedRejections } from '../../shared/feed/journal';
import { key } from '../../shared/db/keys';
import { eventually } from '../support/eventually';
import { fetchFromRuntime } from '../support/request';
import { testDocumentClient, testSqsClient } from '../support/resources';
import { useTestRuntime } from '../support/runtime';
import { coveringRequests, expectListsExact, type FleetCustomer } from '../sim-lists/support/fleet';

/**
 * Issue #31, "Checked by": a 10,000-line feed file of hostile lines mixed with good ones (every
 * odd name, oversize value, future time and duplicate the issue names, in a random order, split
 * across messages) through `POST /_local/feed` and the runtime's queue, consumer and stream
 * consumers: every good line applied, every bad line refused once with its reason, nothing
 * dead-lettered, and lifecycle events and list counts right afterwards (the counts checked
 * against a scan of the table).
 *
 * It writes thousands of items: @dynamodb-local-of-its-own (test/support/dynamodb-lease.ts).
 */

const seed: unknown = JSON.parse(readFileSync(new URL('../../local/demo-seed.json', import.meta.url), 'utf8'));
const credentials = demoCredentials(seed);
const developer = { Authorization: `Bearer ${credentials.bearerToken}`, 'X-Customer-API-Key': credentials.apiKey!, 'Content-Type': 'application/json' };
const db = testDocumentClient();
const runtime = useTestRuntime({ seed }, { stopAfter: () => db.destroy() });

/** A deterministic generator (a linear congruential one), so that a failure can be replayed. */
const random = (() => {
  let state = 31;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
})();
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

const month = new Date().toISOString().slice(0, 7);
const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 9, minute)).toISOString();
const newIds = Array.from({ length: 300 }, (_, index) => 500_001 + index);
const iccidOf = (id: number) => `894451${String(id).padStart(13, '0')}`;
const owners = ['acme', 'acme-north', 'acme-south', 'acme-north-depot'];
const finalUsage = (id: number) => `${id % 1000}.${String(id % 97).padStart(2, '0')}`;
const suspended = (id: number) => id % 2 === 0;

/** The good lines: 300 new SIMs, each with two usage records (the later one wins), half suspended later; a fifth of them twice. */
const goodLines = (): string[] => {
  const lines: string[] = [];
  for (const id of newIds) {
    lines.push(JSON.stringify({ type: 'sim', source_time: at(1), id, iccid: iccidOf(id), customer: owners[id % owners.length], status: 'active', connection_status: 'active', ...(id % 3 === 0 ? { msisdn: `4479${id}` } : {}) }));
    lines.push(JSON.stringify({ type: 'usage', source_time: at(2), iccid: iccidOf(id), month, data_used_mb: '1.00', data_overage_mb: '0.00', overage_cost: '0.00' }));
    lines.push(JSON.stringify({ type: 'usage', source_time: at(3), iccid: iccidOf(id), month, data_used_mb: finalUsage(id), data_overage_mb: '0.00', overage_cost: '0.00' }));
    if (suspended(id)) lines.push(JSON.stringify({ type: 'sim_status', source_time: at(4), iccid: iccidOf(id), status: 'suspended' }));
  }
  return [...lines, ...lines.filter(() => random() < 0.2)];
};

/** One hostile line: each kind the issue names, and some more. */
const hostileKinds: (() => string)[] = [
  ...['constructor', '__proto__', 'toString', 'prototype', 'hasOwnProperty', 'valueOf'].map((name) => () => JSON.stringify({ type: name, source_time: at(5), iccid: iccidOf(500_001) })),
  ...['__proto__', 'constructor', 'toString', 'acme#1', 'x'.repeat(3_000), ''].map((id) => () => JSON.stringify({ type: 'customer', source_time: at(5), id, name: 'Odd', parent: 'acme', sms_enabled: true })),
  ...['constructor', 'a#b', 'x'.repeat(3_000)].map((id) => () => JSON.stringify({ type: 'data_bundle', source_time: at(5), id, customer: 'acme', allowance_mb: '1', monthly_cost: '1', per_sim_access_fee: '0' })),
  ...['nobody', 'constructor', '__proto__', 'acme#0'].map((customer) => () => JSON.stringify({ type: 'sim', source_time: at(5), id: 600_000 + Math.floor(random() * 1000), iccid: iccidOf(600_000), customer, status: 'active', connection_status: 'active' })),
  () => JSON.stringify({ type: 'sim_status', source_time: new Date(Date.now() + 2 * 86_400_000).toISOString(), iccid: iccidOf(pick(newIds)), status: 'cancelled' }),
  () => JSON.stringify({ type: 'usage', source_time: '9999-12-31T23:59:59Z', iccid: iccidOf(pick(newIds)), month, data_used_mb: '9.00', data_overage_mb: '0.00', overage_cost: '0.00' }),
  () => JSON.stringify({ type: 'usage', source_time: at(9), iccid: iccidOf(pick(newIds)), month: '2099-01', data_used_mb: '9.00', data_overage_mb: '0.00', overage_cost: '0.00' }),
  () => JSON.stringify({ type: 'usage', source_time: at(9), iccid: iccidOf(pick(newIds)), month, data_used_mb: '1234567890123.00', data_overage_mb: '0.00', overage_cost: '0.00' }),
  () => JSON.stringify({ type: 'sim', source_time: at(9), id: pick(newIds), iccid: '1'.repeat(21) }),
  () => JSON.stringify({ type: 'sim', source_time: at(9), id: pick(newIds), iccid: iccidOf(pick(newIds)), msisdn: 'call me' }),
  () => JSON.stringify({ type: 'sim', source_time: at(9), id: 1001, iccid: iccidOf(pick(newIds)) }),
  () => JSON.stringify({ type: 'sim_status', source_time: at(9), iccid: iccidOf(pick(newIds)), status: 'constructor' }),
  () => `{"type":"usage","source_time":"${at(9)}","iccid":"${iccidOf(pick(newIds))}","__proto__":{"data_used_mb":"9.00"}}`,
  () => JSON.stringify({ type: 'usage', source_time: at(9), iccid: iccidOf(pick(newIds)), colour: 'red' }),
  () => 'not json at all',
  () => '[1,2,3]',
  () => 'null',
  () => '42',
  () => '{}',
  () => `{"type":"usage","source_time":"${at(9)}","iccid":"\u0000"}`,
  () => `{"type":"sim","id":${'9'.repeat(400)}}`,
  () => JSON.stringify({ type: 'customer', source_time: at(9), id: 'acme-east', name: 'N'.repeat(201), parent: 'acme', sms_enabled: true }),
];

/** The file: good and hostile lines in a random order (10,000 in all); the 1-based numbers of the hostile ones. */
const hostileFile = () => {
  const good = goodLines().map((text) => ({ text, bad: false }));
  const bad = Array.from({ length: 10_000 - good.length }, () => ({ text: pick(hostileKinds)(), bad: true }));
  const all = [...good, ...bad];
  for (let index = all.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [all[index], all[other]] = [all[other]!, all[index]!];
  }
  return { text: all.map((line) => line.text).join('\n'), badLines: all.flatMap((line, index) => (line.bad ? [index + 1] : [])) };
};

const acmeTree: FleetCustomer[] = [
  { id: 'acme', name: 'Acme Ltd', parent: null },
  { id: 'acme-north', name: 'Acme North', parent: 'acme' },
  { id: 'acme-south', name: 'Acme South', parent: 'acme' },
  { id: 'acme-north-depot', name: 'Acme North Depot', parent: 'acme-north' },
];

describe('a 10,000-line feed file of hostile lines mixed with good ones', () => {
  it('applies every good line, refuses every bad line once with its reason, dead-letters nothing, and leaves events and list counts right', async () => {
    const subscribed = await fetchFromRuntime(`${runtime.baseUrl}/developer/api/webhooks/`, {
      method: 'POST',
      headers: developer,
      body: JSON.stringify({ url: lifecycleUrlOf(runtime.inbox.url), events: ['line.suspended'] }),
    });
    expect(subscribed.status).toBe(201);
    const { text, badLines } = hostileFile();
    const answer = await fetch(`${runtime.baseUrl}/_local/feed`, { method: 'POST', body: text });
    expect(answer.status).toBe(202);
    const { accepted, rejected } = (await answer.json()) as { accepted: number; rejected: { line: number; reason: string }[] };
    // Every line reached the consumer but those the sender leaves out (too long, or a character a
    // queue message cannot carry): the journal's messages add up to the rest.
    const table = { db, tableName: runtime.tableName };
    const leftOut = rejected.filter((line) => line.reason.startsWith('the line is longer') || line.reason.endsWith('which a queue message cannot carry'));
    const sent = 10_000 - leftOut.length;
    await eventually(async () => expect((await listFeedBatches(table, Date.now(), 1_000)).reduce((sum, batch) => sum + batch.lines, 0)).toBe(sent), 180_000, 1_000);

    // Every bad line refused exactly once, with a reason; no good line refused.
    const refusals = await listFeedRejections(table, Date.now(), 20_000);
    const refusedLines = [...refusals.map((refusal) => refusal.line), ...leftOut.map((line) => line.line)].sort((left, right) => left - right);
    expect(refusedLines).toEqual(badLines);
    expect(refusals.every((refusal) => refusal.reason.length > 0)).toBe(true);
    expect(accepted).toBe(10_000 - rejected.length);
    expect(rejected.every((line) => badLines.includes(line.line))).toBe(true);

    // Nothing dead-lettered.
    const sqs = testSqsClient();
    const dead = await sqs.send(new ReceiveMessageCommand({ QueueUrl: runtime.queues['operator-feed'].deadLetterUrl, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }));
    sqs.destroy();
    expect(dead.Messages ?? []).toEqual([]);

    // Every good line applied: each new SIM with its latest figures and status, its number its own.
    const sims = await Promise.all(newIds.map(async (id) => (await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.sim(id), ConsistentRead: true }))).Item));
    expect(sims.map((sim) => [sim?.id, sim?.status, sim?.data_used_mb, sim?.msisdn ?? null])).toEqual(
      newIds.map((id) => [id, suspended(id) ? 'suspended' : 'active', finalUsage(id), id % 3 === 0 ? `4479${id}` : null]),
    );

    // Lifecycle events: every SIM that was suspended made its line.suspended.
    const suspendedIccids = newIds.filter(suspended).map(iccidOf).sort();
    await eventually(
      () => {
        const received = new Set(
          runtime.inbox
            .deliveries()
            .filter((delivery) => delivery.path === '/lifecycle')
            .map((delivery) => JSON.parse(delivery.body) as { type: string; data: { iccid: string } })
            .filter((event) => event.type === 'line.suspended')
            .map((event) => event.data.iccid),
        );
        expect(suspendedIccids.filter((iccid) => !received.has(iccid))).toEqual([]);
      },
      90_000,
      1_000,
    );

    // List counts: every list of the acme tree (each customer, direct or not, each status) as a scan counts it.
    await expectListsExact(table, coveringRequests(acmeTree, [], 100), 60_000, 1_000);
  }, 300_000);
});
