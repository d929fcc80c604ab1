import { readFileSync } from 'node:fs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedDocument } from '../../local/seed/load';
import { applyFeedMessage } from '../../shared/feed/apply';
import { readFeedLine } from '../../shared/feed/records';
import { key } from '../../shared/db/keys';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';

/**
 * Issue #31, point 1, the feed's property test: the names every JavaScript object carries,
 * key separators, oversize and otherwise odd values, fed into every field of every record kind
 * (the type included), one odd line beside a good one in each message: the message is always
 * acknowledged, the odd line applies or is refused with a reason, and the good line beside it
 * always applies. On DynamoDB Local, through the consumer's core.
 */

const demoSeed: unknown = JSON.parse(readFileSync(new URL('../../local/demo-seed.json', import.meta.url), 'utf8'));
const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);
let tableName = '';
beforeAll(async () => {
  tableName = await createTestTable({ stream: false });
  await loadSeedDocument(demoSeed, { client: dynamo, tableName });
});
afterAll(() => dynamo.destroy());

/** The odd values a hostile operator (or a broken one) sends. */
const oddValues: unknown[] = [
  'constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__',
  'acme#1', '#', 'acme north', '', ' ', 'x'.repeat(3_000), '9'.repeat(25), '\u0000', '\u202e', '🙂', 'ＡＣＭＥ',
  '2026-02-30T10:00:00Z', '9999-12-31T23:59:59Z', '2026-13', '1'.repeat(13) + '.00', '-1.00', '1.005', '+', '++447700900001',
  0, -1, 1e308, 2 ** 53, 1.5, true, null, [], {}, { __proto__: null }, ['constructor'], { constructor: 'x' },
];

/** A well-formed record of each kind, whose fields the property replaces one at a time. */
const base: Record<string, Record<string, unknown>> = {
  sim: { type: 'sim', source_time: '2026-11-25T10:00:00Z', id: 7777, iccid: '8944500000000007777', msisdn: '447700977777', customer: 'acme-north', status: 'active', connection_status: 'active', tariff_name: 'IoT', base_cost: '1.00', data_bundle: null },
  sim_status: { type: 'sim_status', source_time: '2026-11-25T10:00:00Z', iccid: '8944500000000001011', status: 'suspended', connection_status: 'inactive' },
  usage: { type: 'usage', source_time: '2026-11-25T10:00:00Z', iccid: '8944500000000001012', month: new Date().toISOString().slice(0, 7), data_used_mb: '1.00', data_overage_mb: '0.00', overage_cost: '0.00' },
  customer: { type: 'customer', source_time: '2026-11-25T10:00:00Z', id: 'acme-east', name: 'Acme East', parent: 'acme', sms_enabled: true },
  data_bundle: { type: 'data_bundle', source_time: '2026-11-25T10:00:00Z', id: 'b-east', customer: 'acme', allowance_mb: '10', monthly_cost: '1', per_sim_access_fee: '0' },
};

/** One field of one record kind set to an odd value (or an odd field added). */
const oddLine = fc.oneof(
  fc.tuple(fc.constantFrom(...Object.keys(base)), fc.nat(), fc.constantFrom(...oddValues)).map(([kind, fieldIndex, value]) => {
    const record = { ...base[kind]! };
    const fields = Object.keys(record);
    record[fields[fieldIndex % fields.length]!] = value;
    return JSON.stringify(record);
  }),
  fc.tuple(fc.constantFrom(...Object.keys(base)), fc.constantFrom('constructor', '__proto__', 'toString', 'prototype', 'x'.repeat(300)), fc.constantFrom(...oddValues)).map(
    // An odd field name, written by hand: JSON.stringify of an object literal would drop __proto__.
    ([kind, name, value]) => `${JSON.stringify(base[kind]).slice(0, -1)},${JSON.stringify(name)}:${JSON.stringify(value)}}`,
  ),
);

let message = 0;
let minute = 0;

describe('odd names and values in every field of every record kind', () => {
  it('each costs only its own line: the message is acknowledged and the good line beside it applies', async () => {
    await fc.assert(
      fc.asyncProperty(oddLine, async (line) => {
        minute += 1;
        const used = `${minute}.00`;
        const good = JSON.stringify({ type: 'usage', source_time: new Date(Date.UTC(2026, 10, 26, 0, minute)).toISOString(), iccid: '8944500000000001001', month: new Date().toISOString().slice(0, 7), data_used_mb: used, data_overage_mb: '0.00', overage_cost: '0.00' });
        const batch = await applyFeedMessage({ db, tableName }, { body: `${line}\n${good}`, firstLine: 1, batchId: `odd-${(message += 1)}` }, Date.now());
        expect(batch.lines).toBe(2);
        expect(batch.applied + batch.unchanged + batch.stale + batch.rejected + batch.held).toBe(2);
        const sim = (await db.send(new GetCommand({ TableName: tableName, Key: key.sim(1001), ConsistentRead: true }))).Item;
        expect(sim?.data_used_mb).toBe(used);
        // A line refused when read is refused with the reason readFeedLine gives; one read well is applied, held or refused by the data.
        const read = readFeedLine(line, Date.now());
        if ('reason' in read) expect(batch.rejected).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 80, seed: 31 },
    );
  }, 120_000);
});
