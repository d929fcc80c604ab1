import { readFileSync } from 'node:fs';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSeedDocument } from '../../local/seed/load';
import { applyFeedMessage } from '../../shared/feed/apply';
import { listHeldLines } from '../../shared/feed/held';
import { listFeedRejections } from '../../shared/feed/journal';
import { readGroupDirectory } from '../../shared/groups/directory';
import { key } from '../../shared/db/keys';
import { findSimByMsisdn } from '../../shared/msisdn/msisdn-index';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';

/**
 * The operator feed under hostile and bulk input (issue #31, points 1 to 4 and the feed's half
 * of 7), through the consumer's core on DynamoDB Local: every break the issue saw on main, each
 * line costing only itself, records for SIMs not seen yet held and applied when the SIM
 * arrives, numbers going to the latest record that names them in any order, and new SIMs in
 * any number per message.
 */

const demoSeed: unknown = JSON.parse(readFileSync(new URL('../../local/demo-seed.json', import.meta.url), 'utf8'));
const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);
afterAll(() => dynamo.destroy());

type Table = { db: DynamoDBDocumentClient; tableName: string };

/** A fresh table with the demo seed (no stream: nothing here reads it). */
const seededTable = async (client: DynamoDBDocumentClient = db): Promise<Table> => {
  const tableName = await createTestTable({ stream: false });
  await loadSeedDocument(demoSeed, { client: dynamo, tableName });
  return { db: client, tableName };
};

let batchNumber = 0;
/** Applies one message of records (objects are written as JSON, strings as they are). */
const apply = (table: Table, records: unknown[], nowMs = Date.now()) =>
  applyFeedMessage(table, { body: records.map((record) => (typeof record === 'string' ? record : JSON.stringify(record))).join('\n'), firstLine: 1, batchId: `hostile-${(batchNumber += 1)}` }, nowMs);

const itemOf = async (table: Table, itemKey: { PK: string; SK: string }) => (await db.send(new GetCommand({ TableName: table.tableName, Key: itemKey, ConsistentRead: true }))).Item;
const simOf = (table: Table, id: number) => itemOf(table, key.sim(id));
const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 10, minute)).toISOString();
const month = new Date().toISOString().slice(0, 7);
const iccid = (id: number) => `89445000000000${String(id).padStart(5, '0')}`;
const usage = (iccidValue: string, minute: number, used: string) => ({
  type: 'usage', source_time: at(minute), iccid: iccidValue, month, data_used_mb: used, data_overage_mb: '0.00', overage_cost: '0.00',
});
const newSim = (id: number, extra: Record<string, unknown> = {}) => ({
  type: 'sim', source_time: at(1), id, iccid: iccid(id), customer: 'acme-north', status: 'active', connection_status: 'active', ...extra,
});
const reasonsOf = async (table: Table, batchId: string) =>
  (await listFeedRejections(table, Date.now(), 500)).filter((rejection) => rejection.batch_id === batchId).map((rejection) => [rejection.line, rejection.reason]);

describe('names are data', () => {
  it('refuses a type named constructor, __proto__ or toString as unknown, and applies the lines beside it', async () => {
    const table = await seededTable();
    const batch = await apply(table, [
      { type: 'constructor', source_time: at(1) },
      { type: '__proto__', source_time: at(1) },
      { type: 'toString', source_time: at(1) },
      usage(iccid(1001), 1, '3.00'),
    ]);
    const unknown = (name: string) => `type "${name}" is unknown; one of sim, sim_status, usage, customer, data_bundle`;
    expect(batch).toMatchObject({ lines: 4, applied: 1, rejected: 3 });
    expect(await reasonsOf(table, batch.batch_id)).toEqual([[1, unknown('constructor')], [2, unknown('__proto__')], [3, unknown('toString')]]);
    expect(await simOf(table, 1001)).toMatchObject({ data_used_mb: '3.00' });
  });

  it('refuses __proto__, constructor and the other names every object carries as ids, alone, and takes them as plain unknown names in references', async () => {
    const table = await seededTable();
    const rule = 'id must be 1 to 64 characters of letters, digits, ".", "_" and "-", starting with a letter or a digit';
    const reserved = 'id must not be a name every JavaScript object carries (constructor, prototype, toString, valueOf, hasOwnProperty ...)';
    const batch = await apply(table, [
      { type: 'customer', source_time: at(1), id: '__proto__', name: 'Proto', parent: 'acme', sms_enabled: true },
      { type: 'customer', source_time: at(1), id: 'constructor', name: 'Builder', parent: 'acme', sms_enabled: true },
      { type: 'data_bundle', source_time: at(1), id: 'valueOf', customer: 'acme', allowance_mb: '10', monthly_cost: '1', per_sim_access_fee: '0' },
      { type: 'customer', source_time: at(1), id: 'builder', name: 'Builder', parent: 'acme', sms_enabled: true },
      { type: 'customer', source_time: at(1), id: 'builder-2', name: 'Builder', parent: 'acme', sms_enabled: true },
      newSim(6101, { customer: 'toString' }),
      newSim(6102, { data_bundle: 'hasOwnProperty' }),
      newSim(6103, { customer: 'builder' }),
    ]);
    expect(await reasonsOf(table, batch.batch_id)).toEqual([
      [1, rule],
      [2, reserved],
      [3, reserved],
      [5, 'name "Builder" is already the name of customer builder of group acme'],
      [6, reserved.replace('id ', 'customer ')],
      [7, reserved.replace('id ', 'data_bundle ')],
    ]);
    expect(batch).toMatchObject({ lines: 8, applied: 2, rejected: 6 });
    const directory = await readGroupDirectory(table, 'acme', true);
    expect([directory?.customers.get('builder')?.name, directory?.customers.has('constructor'), directory?.bundles.has('valueOf')]).toEqual(['Builder', false, false]);
    expect(await simOf(table, 6103)).toMatchObject({ customer_id: 'builder', customer_path: ['acme', 'builder'] });
  });

  it('takes constructor, toString and __proto__ as plain unknown names where a line names what exists', async () => {
    const table = await seededTable();
    const batch = await apply(table, [
      { type: 'usage', source_time: at(1), iccid: iccid(1001), month, data_used_mb: '1', data_overage_mb: '0', overage_cost: '0', constructor: 'x' },
      { type: 'sim_status', source_time: at(1), iccid: iccid(1001), status: 'constructor' },
      { type: 'sim', source_time: at(1), id: 1001, iccid: iccid(1001), connection_status: '__proto__' },
    ]);
    expect(await reasonsOf(table, batch.batch_id)).toEqual([
      [1, 'unknown field "constructor" in a usage record'],
      [2, 'status must be one of active, inactive, suspended, cancelled, stock, dispatched, trial'],
      [3, 'connection_status must be one of active, inactive'],
    ]);
  });

  it('refuses an id of 3,000 characters alone: the good line of its message applies and nothing goes back to the queue', async () => {
    const table = await seededTable();
    const batch = await apply(table, [{ type: 'customer', source_time: at(1), id: 'x'.repeat(3_000), name: 'Long', parent: null, sms_enabled: true }, usage(iccid(1002), 1, '7.00')]);
    expect(batch).toMatchObject({ lines: 2, applied: 1, rejected: 1 });
    expect(await simOf(table, 1002)).toMatchObject({ data_used_mb: '7.00' });
  });

  it('refuses an id with the key separator, so no id makes its key another id\'s key', async () => {
    const table = await seededTable();
    const batch = await apply(table, [{ type: 'customer', source_time: at(1), id: 'acme#1', name: 'Shard', parent: 'acme', sms_enabled: true }]);
    expect(batch).toMatchObject({ rejected: 1 });
    expect(await itemOf(table, key.customer('acme#1'))).toBeUndefined();
  });
});

describe('a line is refused alone', () => {
  it('applies a sim record that carries only data_bundle (a bundle, or null): the field an operator changes', async () => {
    const table = await seededTable();
    await apply(table, [{ type: 'data_bundle', source_time: at(1), id: 'b-north', customer: 'acme-north', allowance_mb: '100', monthly_cost: '5', per_sim_access_fee: '0' }]);
    const batch = await apply(table, [
      { type: 'sim', source_time: at(2), id: 1009, iccid: iccid(1009), data_bundle: 'b-north' },
      { type: 'sim', source_time: at(2), id: 1010, iccid: iccid(1010), data_bundle: null },
    ]);
    expect(batch).toMatchObject({ lines: 2, applied: 2, rejected: 0 });
    expect([(await simOf(table, 1009))?.data_bundle?.id, (await simOf(table, 1010))?.data_bundle]).toEqual(['b-north', null]);
  });

  it('refuses a line whose write DynamoDB refuses (not an outage) alone, and the message is acknowledged', async () => {
    // A client of its own: a document client shares its middleware stack with the client under it.
    const client = testDocumentClient();
    // DynamoDB refuses the write of SIM 1003's record (as it would an over-long key): a ValidationException.
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Key?: { PK?: string } };
        if (context.commandName === 'UpdateItemCommand' && input.Key?.PK === key.sim(1003).PK) {
          throw Object.assign(new Error('One or more parameter values were invalid'), { name: 'ValidationException', $fault: 'client', $metadata: { httpStatusCode: 400 } });
        }
        return next(args);
      },
      { step: 'initialize' },
    );
    const table = await seededTable(client);
    const batch = await apply(table, [usage(iccid(1003), 1, '1.00'), usage(iccid(1004), 1, '4.00')]);
    expect(batch).toMatchObject({ lines: 2, applied: 1, rejected: 1 });
    expect(await reasonsOf(table, batch.batch_id)).toEqual([[1, 'could not be applied: ValidationException: One or more parameter values were invalid']]);
    expect(await simOf(table, 1004)).toMatchObject({ data_used_mb: '4.00' });
  });

  it('gives the whole message back on an outage (throttling), refusing nothing', async () => {
    const client = testDocumentClient();
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'UpdateItemCommand') throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), { name: 'ProvisionedThroughputExceededException', $fault: 'client', $retryable: { throttling: true } });
        return next(args);
      },
      { step: 'initialize' },
    );
    const table = await seededTable(client);
    await expect(apply(table, [usage(iccid(1003), 1, '1.00')])).rejects.toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    expect(await listFeedRejections(table, Date.now())).toEqual([]);
  });

  it('refuses a source_time more than 24 hours ahead and a month after the next, with their reasons', async () => {
    const table = await seededTable();
    const now = Date.now();
    const future = new Date(now + 25 * 3_600_000).toISOString();
    const nextMonth = new Date(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
    const later = new Date(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 2, 1)).toISOString().slice(0, 7);
    const batch = await apply(
      table,
      [
        { type: 'sim_status', source_time: future, iccid: iccid(1005), status: 'suspended' },
        { ...usage(iccid(1005), 1, '9.00'), month: later },
        { type: 'sim_status', source_time: new Date(now + 23 * 3_600_000).toISOString(), iccid: iccid(1006), status: 'active' },
        { ...usage(iccid(1006), 1, '9.00'), month: nextMonth },
      ],
      now,
    );
    expect(batch).toMatchObject({ lines: 4, applied: 2, rejected: 2 });
    expect(await reasonsOf(table, batch.batch_id)).toEqual([
      [1, `source_time ${future} is more than 24 hours ahead of the service's clock (${new Date(now).toISOString()})`],
      [2, `month ${later} is after next month (${nextMonth})`],
    ]);
    expect(await simOf(table, 1005)).toMatchObject({ status: 'active' });
  });
});

describe('order', () => {
  it('applies a status line after the line that creates its SIM in the same message', async () => {
    const table = await seededTable();
    const batch = await apply(table, [newSim(6201), { type: 'sim_status', source_time: at(2), iccid: iccid(6201), status: 'suspended' }]);
    expect(batch).toMatchObject({ lines: 2, applied: 2, rejected: 0 });
    expect(await simOf(table, 6201)).toMatchObject({ status: 'suspended' });
  });

  it('holds lines for a SIM not seen yet, shows them in the journal, and applies them by the same rules when the SIM arrives', async () => {
    const table = await seededTable();
    const first = await apply(table, [
      usage(iccid(6301), 5, '20.00'),
      { type: 'sim_status', source_time: at(0), iccid: iccid(6301), status: 'suspended' },
      { type: 'sim', source_time: at(6), id: 6301, iccid: iccid(6301), tariff_name: 'Late tariff' },
    ]);
    expect(first).toMatchObject({ lines: 3, held: 3, applied: 0, rejected: 0 });
    expect((await listHeldLines(table, Date.now())).filter((held) => held.iccid === iccid(6301)).map((held) => held.line).sort()).toEqual([1, 2, 3]);
    // The SIM arrives (status active at minute 1): the status of minute 0 is older, the usage and tariff newer.
    const second = await apply(table, [newSim(6301)]);
    expect(second).toMatchObject({ lines: 1, applied: 1, released: 3 });
    expect(await simOf(table, 6301)).toMatchObject({ status: 'active', data_used_mb: '20.00', tariff_name: 'Late tariff' });
    expect((await listHeldLines(table, Date.now())).filter((held) => held.iccid === iccid(6301))).toEqual([]);
  });

  it('applies a held line of the same message ahead of the line that creates its SIM', async () => {
    const table = await seededTable();
    const batch = await apply(table, [usage(iccid(6401), 5, '11.00'), newSim(6401)]);
    expect(batch).toMatchObject({ lines: 2, held: 1, applied: 1, released: 1 });
    expect(await simOf(table, 6401)).toMatchObject({ data_used_mb: '11.00' });
  });
});

describe('numbers go to the latest record that names them', () => {
  it('lets SIM Y take the number SIM X releases earlier in the same message', async () => {
    const table = await seededTable();
    const batch = await apply(table, [
      { type: 'sim', source_time: at(2), id: 1001, iccid: iccid(1001), msisdn: null },
      { type: 'sim', source_time: at(3), id: 1005, iccid: iccid(1005), msisdn: '447700900001' },
    ]);
    expect(batch).toMatchObject({ lines: 2, applied: 2, rejected: 0 });
    expect([(await simOf(table, 1001))?.msisdn, (await simOf(table, 1005))?.msisdn]).toEqual([null, '447700900001']);
    expect((await findSimByMsisdn(table, '447700900001'))?.id).toBe(1005);
  });

  it('ends alike in any order: a later claim takes the number and the former holder\'s msisdn becomes null; an older one does not', async () => {
    const records = [
      { type: 'sim', source_time: at(10), id: 1005, iccid: iccid(1005), msisdn: '447700900002' },
      { type: 'sim', source_time: at(20), id: 1006, iccid: iccid(1006), msisdn: '447700900002' },
      { type: 'sim', source_time: at(15), id: 1002, iccid: iccid(1002), msisdn: '447700900009' },
      { type: 'sim', source_time: at(30), id: 1005, iccid: iccid(1005), msisdn: '447700900010' },
    ];
    const states: unknown[] = [];
    for (const order of [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]]) {
      const table = await seededTable();
      for (const index of order) await apply(table, [records[index]]);
      states.push(await Promise.all([1002, 1005, 1006, 1009, 1010].map(async (id) => (await simOf(table, id))?.msisdn)));
    }
    // 1006's record (minute 20) is the latest to name ...002: seeded 1002 and 1005 (minute 10) lose it;
    // 1002 (minute 15) takes ...009 from seeded 1009; 1005 (minute 30) ends on ...010, taken from seeded 1010.
    const expected = ['447700900009', '447700900010', '447700900002', null, null];
    expect(states).toEqual([expected, expected, expected, expected]);
  });
});

describe('fleets of real size', () => {
  it.each([1, 100, 101, 1_000])('creates %i new SIMs from one message', async (count) => {
    const table = await seededTable();
    const records = Array.from({ length: count }, (_, index) => newSim(200_000 + index, { msisdn: `4479${String(200_000 + index).padStart(8, '0')}` }));
    const batch = await apply(table, records);
    expect(batch).toMatchObject({ lines: count, applied: count, rejected: 0 });
    const last = 200_000 + count - 1;
    expect(await simOf(table, last)).toMatchObject({ id: last, customer_id: 'acme-north', msisdn: `4479${String(last).padStart(8, '0')}` });
    expect((await findSimByMsisdn(table, `4479${String(last).padStart(8, '0')}`))?.id).toBe(last);
  }, 120_000);
});
