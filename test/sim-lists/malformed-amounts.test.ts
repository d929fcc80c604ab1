import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedDocument } from '../../local/seed/load';
import type { SimItem } from '../../shared/db/items';
import { key } from '../../shared/db/keys';
import { changeSimsFields, MalformedSimField, putSims } from '../../shared/sims/sim-writes';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';
import { allSims, fleetSeed, treeOf } from './support/fleet';

/**
 * The SIM write path refuses an amount the read path could not show (a SIM stored with
 * `data_used_mb` "4.25.00" made every list page holding it answer 500), before it writes
 * anything of the batch: neither the SIMs, nor their MSISDN claims, nor their list positions.
 */

const now = Date.now();
const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);
let table: { db: DynamoDBDocumentClient; tableName: string };
let sims: SimItem[];

beforeAll(async () => {
  table = { db, tableName: await createTestTable() };
  await loadSeedDocument(fleetSeed(treeOf('m'), 3, { firstId: 1, now }), { client: dynamo, tableName: table.tableName });
  sims = await allSims(db, table.tableName);
}, 60_000);

afterAll(() => dynamo.destroy());

const stored = async (id: number) => (await db.send(new GetCommand({ TableName: table.tableName, Key: key.sim(id), ConsistentRead: true }))).Item;

describe('the SIM write path and malformed amounts', () => {
  it('refuses a change whose amount is not a decimal string, and writes no change of its batch', async () => {
    const [first, second] = sims;
    const before = [await stored(first!.id), await stored(second!.id)];
    const refused = changeSimsFields(
      table,
      [
        { current: first!, fields: { status: 'suspended' } },
        { current: second!, fields: { data_used_mb: '4.25.00' } },
      ],
      now + 1000,
    );
    await expect(refused).rejects.toThrow(new MalformedSimField(second!.id, 'data_used_mb', '4.25.00'));
    await expect(refused).rejects.toThrow(`SIM ${second!.id}: data_used_mb must be a decimal amount such as "12.50", not "4.25.00"`);
    expect([await stored(first!.id), await stored(second!.id)]).toEqual(before);
  });

  it('refuses an amount of another type than a string', async () => {
    const third = sims[2]!;
    await expect(changeSimsFields(table, [{ current: third, fields: { base_cost: 5 as unknown as string } }], now + 1000)).rejects.toThrow(
      new MalformedSimField(third.id, 'base_cost', 5),
    );
  });

  it('refuses a whole SIM with a malformed or missing amount before claiming its MSISDN', async () => {
    const template = sims[0]!;
    const fresh = { ...template, id: 900, iccid: '8944000000000000900', msisdn: '447700900900', overage_cost: 'free' };
    await expect(putSims(table, [fresh], now)).rejects.toThrow(new MalformedSimField(900, 'overage_cost', 'free'));
    const { overage_cost: _dropped, ...withoutCost } = fresh;
    await expect(putSims(table, [withoutCost as SimItem], now)).rejects.toThrow(new MalformedSimField(900, 'overage_cost', undefined));
    expect(await stored(900)).toBeUndefined();
    expect((await db.send(new GetCommand({ TableName: table.tableName, Key: key.msisdn('447700900900'), ConsistentRead: true }))).Item).toBeUndefined();
  });

  it('writes decimal amounts as before', async () => {
    const third = sims[2]!;
    const [result] = await changeSimsFields(table, [{ current: third, fields: { data_used_mb: '7.5', base_cost: '-0.25' } }], now + 2000);
    expect(result).toMatchObject({ outcome: 'written', sim: { data_used_mb: '7.5', base_cost: '-0.25' } });
    expect(await stored(third.id)).toMatchObject({ data_used_mb: '7.5', base_cost: '-0.25' });
  });
});
