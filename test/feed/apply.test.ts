import { readFileSync } from 'node:fs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedDocument } from '../../local/seed/load';
import { scanAll } from '../seed/fixtures';
import { applyFeedMessage } from '../../shared/feed/apply';
import { listFeedBatches, listFeedRejections } from '../../shared/feed/journal';
import { readGroupDirectory } from '../../shared/groups/directory';
import { key } from '../../shared/db/keys';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';

/**
 * The operator feed's records applied to a table (issue #20, points 1, 2 and 5), through the
 * consumer's core (applyFeedMessage) on DynamoDB Local: each record type, each reason a line is
 * refused (alone: the rest of its message applies), the source-time and month rules, late,
 * repeated and reordered records, and the journal of batches and refused lines.
 */

const demoSeed: unknown = JSON.parse(readFileSync(new URL('../../local/demo-seed.json', import.meta.url), 'utf8'));
const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);

/** DynamoDB requests by command name, counted on a table's client. */
const counted = () => {
  const client = testDocumentClient();
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      counts.set(context.commandName!, (counts.get(context.commandName!) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize' },
  );
  return { client, counts };
};

/** A fresh table with the demo seed (no stream: nothing here reads it). */
const seededTable = async (client = db) => {
  const tableName = await createTestTable({ stream: false });
  await loadSeedDocument(demoSeed, { client: dynamo, tableName });
  return { db: client, tableName };
};

let batchNumber = 0;
/** Applies one message of records (objects are written as JSON, strings as they are). */
const apply = (table: { db: DynamoDBDocumentClient; tableName: string }, records: unknown[], nowMs = Date.now()) =>
  applyFeedMessage(
    table,
    { body: records.map((record) => (typeof record === 'string' ? record : JSON.stringify(record))).join('\n'), firstLine: 1, batchId: `batch-${(batchNumber += 1)}` },
    nowMs,
  );

const simOf = async (table: { tableName: string }, id: number) => (await db.send(new GetCommand({ TableName: table.tableName, Key: key.sim(id) }))).Item!;
const itemOf = async (table: { tableName: string }, itemKey: { PK: string; SK: string }) => (await db.send(new GetCommand({ TableName: table.tableName, Key: itemKey }))).Item;

const at = (minute: number) => new Date(Date.UTC(2026, 10, 25, 10, minute)).toISOString();
const month = new Date().toISOString().slice(0, 7);
const monthOffset = (offset: number) => {
  const date = new Date();
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1)).toISOString().slice(0, 7);
};
const iccid = (id: number) => `89445000000000${String(id).padStart(5, '0')}`;
const usage = (id: number, minute: number, used: string, forMonth = month) => ({
  type: 'usage', source_time: at(minute), iccid: iccid(id), month: forMonth, data_used_mb: used, data_overage_mb: '0.00', overage_cost: '0.00',
});
const status = (id: number, minute: number, value: string) => ({ type: 'sim_status', source_time: at(minute), iccid: iccid(id), status: value });

afterAll(() => dynamo.destroy());

describe('each record type', () => {
  let table: { db: DynamoDBDocumentClient; tableName: string };
  beforeAll(async () => {
    table = await seededTable();
  });

  it('usage and sim_status set a seeded SIM (which counts as having received nothing), updated_at the time applied', async () => {
    const now = Date.now();
    // Source times before the seed's updated_at: a seeded SIM has received nothing, so they apply.
    const batch = await apply(table, [usage(1001, 1, '120.5'), status(1001, 2, 'suspended')], now);
    expect(batch).toMatchObject({ lines: 2, applied: 2, unchanged: 0, stale: 0, rejected: 0 });
    expect(await simOf(table, 1001)).toMatchObject({
      data_used_mb: '120.50', data_overage_mb: '0.00', overage_cost: '0.00', usage_month: month, status: 'suspended',
      updated_at_ms: now, src_usage: Date.parse(at(1)), src_status: Date.parse(at(2)),
    });
  });

  it('sim creates a SIM (its ICCID item, its MSISDN claimed, on a bundle of its group) and changes one', async () => {
    const created = { type: 'sim', source_time: at(3), id: 5001, iccid: iccid(5001), msisdn: '447700905001', customer: 'acme-south', status: 'active', connection_status: 'active', tariff_name: 'IoT 1GB', base_cost: '5', data_bundle: 'b-acme-fleet' };
    expect(await apply(table, [created])).toMatchObject({ applied: 1, rejected: 0 });
    expect(await simOf(table, 5001)).toMatchObject({
      id: 5001, iccid: iccid(5001), msisdn: '447700905001', customer_id: 'acme-south', customer_name: 'Acme South', customer_path: ['acme', 'acme-south'],
      status: 'active', connection_status: 'active', tariff_name: 'IoT 1GB', base_cost: '5.00', data_used_mb: '0.00', data_bundle: { id: 'b-acme-fleet' },
    });
    expect(await itemOf(table, key.simIdByIccid(iccid(5001)))).toMatchObject({ sim_id: 5001, customer_id: 'acme-south' });
    expect(await itemOf(table, { PK: 'MSISDN#447700905001', SK: 'MSISDN' })).toMatchObject({ sim_id: 5001, claim_ms: Date.parse(at(3)), released: false });

    // A change of number and owner: the old number is given back (its claim remembers when a
    // record last named it), the ICCID item follows the owner.
    const changed = { type: 'sim', source_time: at(4), id: 5001, iccid: iccid(5001), msisdn: '447700905002', customer: 'acme-north', tariff_name: 'IoT 5GB', base_cost: '7.50' };
    expect(await apply(table, [changed])).toMatchObject({ applied: 1, rejected: 0 });
    expect(await simOf(table, 5001)).toMatchObject({ msisdn: '447700905002', customer_id: 'acme-north', customer_path: ['acme', 'acme-north'], tariff_name: 'IoT 5GB', base_cost: '7.50' });
    expect(await itemOf(table, { PK: 'MSISDN#447700905001', SK: 'MSISDN' })).toMatchObject({ sim_id: 5001, claim_ms: Date.parse(at(3)), released: true });
    expect(await itemOf(table, { PK: 'MSISDN#447700905002', SK: 'MSISDN' })).toMatchObject({ sim_id: 5001, claim_ms: Date.parse(at(4)), released: false });
    expect(await itemOf(table, key.simIdByIccid(iccid(5001)))).toMatchObject({ customer_id: 'acme-north', customer_path: ['acme', 'acme-north'] });
  });

  it('customer creates a sub-customer and a customer group, and renames one', async () => {
    const records = [
      { type: 'customer', source_time: at(5), id: 'acme-east', name: 'Acme East', parent: 'acme', sms_enabled: true },
      { type: 'customer', source_time: at(5), id: 'initech', name: 'Initech', parent: null, sms_enabled: false },
      { type: 'customer', source_time: at(5), id: 'acme-south', name: 'Acme South Coast', parent: 'acme', sms_enabled: true },
    ];
    expect(await apply(table, records)).toMatchObject({ applied: 3, rejected: 0 });
    expect(await itemOf(table, key.customer('acme-east'))).toMatchObject({ name: 'Acme East', parent: 'acme', path: ['acme', 'acme-east'], sms_enabled: true });
    expect(await itemOf(table, key.customer('initech'))).toMatchObject({ name: 'Initech', parent: null, path: ['initech'] });
    const acme = await readGroupDirectory(table, 'acme', true);
    expect([acme?.customers.get('acme-east'), acme?.customers.get('acme-south')]).toEqual([
      expect.objectContaining({ name: 'Acme East' }),
      expect.objectContaining({ name: 'Acme South Coast' }),
    ]);
    expect((await readGroupDirectory(table, 'initech', true))?.customers.get('initech')).toMatchObject({ name: 'Initech' });
    // The new group can take SIMs at once (its list index exists).
    const sim = { type: 'sim', source_time: at(6), id: 6001, iccid: iccid(6001), customer: 'initech', status: 'active', connection_status: 'active' };
    expect(await apply(table, [sim])).toMatchObject({ applied: 1 });
  });

  it('data_bundle creates a bundle and reprices one', async () => {
    const records = [
      { type: 'data_bundle', source_time: at(7), id: 'b-north', customer: 'acme-north', allowance_mb: '2048', monthly_cost: '20', per_sim_access_fee: '0.5' },
      { type: 'data_bundle', source_time: at(7), id: 'b-acme-fleet', customer: 'acme', allowance_mb: '20480.00', monthly_cost: '90.00', per_sim_access_fee: '1.00' },
    ];
    expect(await apply(table, records)).toMatchObject({ applied: 2, rejected: 0 });
    expect(await itemOf(table, key.dataBundle('b-north'))).toMatchObject({ customer_id: 'acme-north', allowance_mb: '2048.00', monthly_cost: '20.00', per_sim_access_fee: '0.50' });
    expect(Object.fromEntries((await readGroupDirectory(table, 'acme', true))?.bundles ?? [])).toMatchObject({
      'b-north': { customer: 'acme-north', allowance_mb: '2048.00', monthly_cost: '20.00', per_sim_access_fee: '0.50' },
      'b-acme-fleet': { customer: 'acme', allowance_mb: '20480.00', monthly_cost: '90.00', per_sim_access_fee: '1.00' },
    });
  });
});

describe('refused lines', () => {
  it('are refused alone, each with its reason, counted and kept in the journal; the rest of the message applies', async () => {
    const table = await seededTable();
    const newSim = { type: 'sim', source_time: at(1), id: 7001, iccid: iccid(7001), customer: 'acme', status: 'active', connection_status: 'active' };
    const lines: unknown[] = [
      usage(1002, 1, '1.00'),
      'not json',
      { type: 'usage', source_time: at(1), iccid: '8944999999999999999', month, data_used_mb: '1', data_overage_mb: '0', overage_cost: '0' },
      { ...newSim, customer: 'nobody' },
      { ...newSim, status: undefined },
      { ...newSim, iccid: iccid(1003) },
      { type: 'sim', source_time: at(1), id: 1004, iccid: iccid(1005) },
      { ...newSim, source_time: new Date(Date.now() + 25 * 3_600_000).toISOString() },
      { type: 'sim', source_time: at(1), id: 1026, iccid: iccid(1026), data_bundle: 'b-acme-fleet' },
      { type: 'sim', source_time: at(1), id: 1005, iccid: iccid(1005), customer: 'globex' },
      { type: 'customer', source_time: at(1), id: 'acme-south', name: 'Acme South', parent: 'acme-north', sms_enabled: true },
      { type: 'customer', source_time: at(1), id: 'acme-west', name: 'Acme West', parent: 'nobody', sms_enabled: true },
      { type: 'customer', source_time: at(1), id: 'acme-west', name: 'Acme North', parent: 'acme', sms_enabled: true },
      { type: 'data_bundle', source_time: at(1), id: 'b-x', customer: 'nobody', allowance_mb: '1', monthly_cost: '1', per_sim_access_fee: '1' },
      { type: 'data_bundle', source_time: at(1), id: 'b-acme-fleet', customer: 'globex', allowance_mb: '1', monthly_cost: '1', per_sim_access_fee: '1' },
      usage(1007, 1, '1.00', monthOffset(2)),
      status(1002, 1, 'suspended'),
    ];
    const now = Date.now();
    const batch = await apply(table, lines, now);
    // Lines 3 and 5 name SIMs the service has not seen yet: held, not refused (their own test below).
    expect(batch).toMatchObject({ lines: 17, applied: 2, unchanged: 0, stale: 0, rejected: 13, held: 2, released: 0 });
    const expected = [
      [2, 'the line is not JSON'],
      [4, 'customer nobody does not exist'],
      [6, `ICCID ${iccid(1003)} belongs to SIM 1003`],
      [7, `ICCID ${iccid(1005)} belongs to SIM 1005`],
      [8, expect.stringMatching(/^source_time \S+ is more than 24 hours ahead of the service's clock \(\S+\)$/)],
      [9, 'data bundle b-acme-fleet does not exist in customer group globex'],
      [10, 'SIM 1005 moves to customer group globex: the record needs data_bundle (null or a bundle of globex)'],
      [11, 'customer acme-south may not move to another parent (its parent is acme)'],
      [12, 'parent customer nobody does not exist'],
      [13, 'name "Acme North" is already the name of customer acme-north of group acme'],
      [14, 'customer nobody does not exist'],
      [15, 'data bundle b-acme-fleet belongs to customer group acme, not globex'],
      [16, `month ${monthOffset(2)} is after next month (${monthOffset(1)})`],
    ];
    const rejections = await listFeedRejections(table, now);
    expect(rejections.map((rejection) => [rejection.line, rejection.reason])).toEqual(expected);
    expect(rejections[0]).toMatchObject({ batch_id: batch.batch_id, text: 'not json' });
    expect(await listFeedBatches(table, now)).toEqual([batch]);
    // The two good lines applied; nothing of the refused ones was written.
    expect(await simOf(table, 1002)).toMatchObject({ data_used_mb: '1.00', status: 'suspended' });
    expect(await itemOf(table, key.sim(7001))).toBeUndefined();
    expect(await itemOf(table, key.simIdByIccid(iccid(7001)))).toBeUndefined();
    expect(await itemOf(table, key.customer('acme-west'))).toBeUndefined();
    expect(await itemOf(table, key.dataBundle('b-x'))).toBeUndefined();
    expect(await itemOf(table, key.customer('acme-south'))).toMatchObject({ parent: 'acme' });
    const untouched = await simOf(table, 1007);
    expect([untouched.usage_month, untouched.src_usage]).toEqual([month, undefined]);
  });
});

describe('source times and months', () => {
  let table: { db: DynamoDBDocumentClient; tableName: string };
  beforeAll(async () => {
    table = await seededTable();
  });

  it('a late record never wins over a newer one, even one that repeated the stored value', async () => {
    expect(await apply(table, [status(1008, 10, 'suspended')])).toMatchObject({ applied: 1 });
    const applied = await simOf(table, 1008);
    // Newer, same value: it moves the field's latest time, and nothing else.
    expect(await apply(table, [status(1008, 30, 'suspended')], Date.now() + 1_000)).toMatchObject({ unchanged: 1 });
    expect(await simOf(table, 1008)).toEqual({ ...applied, src_status: Date.parse(at(30)) });
    // Older than that repetition: stale, though its value differs.
    expect(await apply(table, [status(1008, 20, 'active')])).toMatchObject({ stale: 1 });
    // The same record again: stale.
    expect(await apply(table, [status(1008, 30, 'suspended')])).toMatchObject({ stale: 1 });
    expect(await simOf(table, 1008)).toEqual({ ...applied, src_status: Date.parse(at(30)) });
  });

  it('each field keeps its own time: a late record sets the fields that are newer to it', async () => {
    await apply(table, [{ type: 'sim_status', source_time: at(40), iccid: iccid(1021), connection_status: 'inactive' }]);
    const both = { type: 'sim_status', source_time: at(35), iccid: iccid(1021), status: 'suspended', connection_status: 'active' };
    expect(await apply(table, [both])).toMatchObject({ applied: 1 });
    expect(await simOf(table, 1021)).toMatchObject({ status: 'suspended', connection_status: 'inactive', src_status: Date.parse(at(35)), src_connection_status: Date.parse(at(40)) });
  });

  it('usage applies for a later month (replacing the figures) or the same month with a later source time', async () => {
    expect(await apply(table, [usage(1022, 10, '10.00')])).toMatchObject({ applied: 1 });
    expect(await apply(table, [usage(1022, 5, '5.00')])).toMatchObject({ stale: 1 });
    // An earlier month never applies, whatever its source time.
    expect(await apply(table, [usage(1022, 50, '99.00', monthOffset(-1))])).toMatchObject({ stale: 1 });
    // A later month applies even with an earlier source time, and replaces the month's figures.
    const next = { ...usage(1022, 1, '0.25', monthOffset(1)), data_overage_mb: '0.10', overage_cost: '0.02' };
    expect(await apply(table, [next])).toMatchObject({ applied: 1 });
    expect(await simOf(table, 1022)).toMatchObject({ usage_month: monthOffset(1), data_used_mb: '0.25', data_overage_mb: '0.10', overage_cost: '0.02' });
    expect(await apply(table, [usage(1022, 20, '7.00')])).toMatchObject({ stale: 1 });
  });

  it("seeded usage counts as the month it was loaded in: an earlier month's record does not replace it", async () => {
    expect(await apply(table, [usage(1023, 1, '1.00', monthOffset(-1))])).toMatchObject({ stale: 1 });
    expect(await simOf(table, 1023)).toMatchObject({ data_used_mb: '99.99', usage_month: month });
  });

  it('a record that changes no value moves no updated_at', async () => {
    const before = await simOf(table, 1024);
    const same = { type: 'sim', source_time: at(1), id: 1024, iccid: iccid(1024), status: before.status, tariff_name: before.tariff_name, base_cost: before.base_cost };
    expect(await apply(table, [same], Date.now() + 60_000)).toMatchObject({ unchanged: 1 });
    const after = await simOf(table, 1024);
    expect([after.updated_at, after.updated_at_ms, after.list_pos]).toEqual([before.updated_at, before.updated_at_ms, before.list_pos]);
  });

  it('in order, a record is one conditional write; out of order, a read and a conditional write', async () => {
    const { client, counts } = counted();
    const countedTable = { db: client, tableName: table.tableName };
    const ids = [1025, 1027, 1028, 1029, 1030];
    await apply(countedTable, ids.map((id) => usage(id, 30, '2.00')));
    const inOrder = Object.fromEntries(counts);
    counts.clear();
    await apply(countedTable, ids.map((id) => usage(id, 25, '3.00'))); // late: each is read, found stale
    const late = Object.fromEntries(counts);
    // BatchGet the ICCID items, one position counter per customer on the SIMs' paths and day
    // (acme and acme-south for 1025, globex for the others), one UpdateItem per record; the journal.
    expect(inOrder).toEqual({ BatchGetItemCommand: 1, UpdateItemCommand: 3 + ids.length, BatchWriteItemCommand: 1 });
    expect(late).toEqual({ BatchGetItemCommand: 1, UpdateItemCommand: 3 + ids.length, GetItemCommand: ids.length, BatchWriteItemCommand: 1 });
    client.destroy();
  });
});

describe('late, repeated and reordered records', () => {
  /** A day of an operator's records about existing SIMs: status, usage over three months, tariffs, numbers, bundles, owners within a group. */
  const recordsOfADay = (): Record<string, unknown>[] => {
    const records: Record<string, unknown>[] = [];
    let minute = 0;
    const next = () => new Date(Date.UTC(2026, 10, 25, 0, (minute += 1))).toISOString();
    const statuses = ['active', 'suspended', 'inactive', 'trial'];
    const ids = [1001, 1002, 1003, 1009, 1010, 1016, 1017, 1021, 1022, 1024];
    for (let round = 0; round < 6; round += 1) {
      for (const [index, id] of ids.entries()) {
        records.push({ type: 'sim_status', source_time: next(), iccid: iccid(id), status: statuses[(round + index) % 4], ...(round % 2 ? { connection_status: round % 4 === 1 ? 'inactive' : 'active' } : {}) });
        records.push({ ...usage(id, 0, `${round * 10 + index}.25`, monthOffset(round < 3 ? 0 : round < 5 ? 1 : 2)), source_time: next() });
        if ((round + index) % 3 === 0) {
          records.push({
            type: 'sim', source_time: next(), id, iccid: iccid(id),
            tariff_name: `Tariff ${round}`, base_cost: `${round}.50`, msisdn: `4477009${String(id).padStart(5, '0')}${round}`,
            data_bundle: round % 2 ? 'b-acme-fleet' : null,
            ...(id < 1021 && round > 2 ? { customer: ['acme', 'acme-north', 'acme-north-depot'][round % 3] } : {}),
          });
        }
      }
    }
    return records;
  };

  /** A deterministic shuffle (a linear congruential generator). */
  const shuffled = <T>(values: T[], seed: number): T[] => {
    const copy = [...values];
    let state = seed;
    for (let index = copy.length - 1; index > 0; index -= 1) {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      const other = state % (index + 1);
      [copy[index], copy[other]] = [copy[other]!, copy[index]!];
    }
    return copy;
  };

  /**
   * The SIM, ICCID and MSISDN items of a table, `updated_at` and the list positions aside, and
   * of a SIM's bundle its id: the copy of the bundle's figures and pool on the SIM item is what
   * they were when the bundle was set, read only for a group without a directory (of an earlier
   * version: shared/sims/sim-object.ts); A1 and A2 answer the directory's.
   */
  const simState = async (tableName: string) =>
    (await scanAll(dynamo, tableName))
      .filter((item) => ['sim', 'sim_iccid', 'msisdn_claim'].includes(String(item.type)))
      .map(({ updated_at: _at, updated_at_ms: _ms, list_pos: _position, listed_at_ms: _listed, ...rest }) =>
        rest.type === 'sim' ? { ...rest, data_bundle: (rest.data_bundle as { id: string } | null)?.id ?? null } : rest,
      )
      .sort((left, right) => `${String(left.PK)}`.localeCompare(`${String(right.PK)}`));

  it('shuffled and duplicated streams end in the same table as the ordered stream', async () => {
    const records = recordsOfADay();
    const inMessages = async (stream: Record<string, unknown>[], size: number) => {
      const table = await seededTable();
      for (let start = 0; start < stream.length; start += size) await apply(table, stream.slice(start, start + size));
      return simState(table.tableName);
    };
    const ordered = await inMessages(records, 40);
    const reordered = await inMessages(shuffled(records, 7), 40);
    // Every record twice, the copies far apart and in another order, in messages of another size.
    const duplicated = await inMessages([...shuffled(records, 11), ...shuffled(records, 13)], 55);
    expect(ordered.length).toBeGreaterThan(60);
    expect(reordered).toEqual(ordered);
    expect(duplicated).toEqual(ordered);
  }, 120_000);
});
