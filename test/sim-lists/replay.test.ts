import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedDocument } from '../../local/seed/load';
import type { SimItem } from '../../shared/db/items';
import { maintainSimLists, type SimChangeRecord } from '../../shared/sim-lists/maintain';
import { changeSimsFields } from '../../shared/sims/sim-writes';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';
import { allSims, coveringRequests, expectListsExact, fleetSeed, treeOf } from './support/fleet';

/**
 * A change is never lost nor counted twice (issue #19, point 1) when the stream hands the
 * consumer a batch again, cut the same or differently, or when a consumer dies half-way: before
 * its journal append, or in the middle of a fold. The consumer is called directly with the
 * records the stream would carry; faults are injected into a second client of the same
 * DynamoDB Local (a middleware that fails one chosen call), never mocked.
 */

const now = Date.now();
const tree = treeOf('r');
const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);
/** Few records a journal before a fold, so that the batches below fold. */
const journalFoldAt = 30;
let table: { db: DynamoDBDocumentClient; tableName: string; journalFoldAt: number };

/** The same table through a client that fails the first call `failing` picks, once. */
const failingOnce = (failing: (command: string, input: string) => boolean) => {
  const client = testDynamoClient();
  let failed = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!failed && failing(String(context.commandName), JSON.stringify(args.input))) {
        failed = true;
        throw new Error('the consumer died here');
      }
      return next(args);
    },
    { step: 'initialize', name: 'injectFault' },
  );
  return { table: { ...table, db: testDocumentClient(client) }, client, hasFailed: () => failed };
};

beforeAll(async () => {
  const tableName = await createTestTable();
  table = { db, tableName, journalFoldAt };
  await loadSeedDocument(fleetSeed(tree, 400, { firstId: 1, now }), { client: dynamo, tableName });
}, 120_000);

afterAll(() => dynamo.destroy());

/** Changes `count` SIMs from `from` on (status and usage), as a writer does, and returns the stream records of the change. */
const changeSims = async (from: number, count: number, status: string): Promise<SimChangeRecord[]> => {
  const sims = (await allSims(db, table.tableName)).filter((sim) => sim.id >= from).slice(0, count);
  await changeSimsFields(table, sims.map((current) => ({ current, fields: { status, data_used_mb: (Number(current.data_used_mb) + 1).toFixed(2) } })), Date.now());
  const after = new Map<number, SimItem>((await allSims(db, table.tableName)).map((sim) => [sim.id, sim]));
  return sims.map((old) => ({ old, new: after.get(old.id) }));
};

describe('the list consumer given a batch again, or dying half-way', () => {
  it('counts every change once', async () => {
    const requests = coveringRequests(tree, [now - 3 * 86_400_000, Date.now() - 60_000], 50);

    const first = await changeSims(1, 60, 'suspended');
    await maintainSimLists(table, first);
    await maintainSimLists(table, first);
    await maintainSimLists(table, first.slice(15, 40));
    await expectListsExact(table, requests, 10_000, 200);

    // Dies after its entry writes, before its journal append; the stream then hands the batch again.
    const second = await changeSims(100, 60, 'trial');
    const beforeAppend = failingOnce((command, input) => /^Update(Item)?Command$/.test(command) && input.includes('SIMLJ#') && input.includes('#seq'));
    await expect(maintainSimLists(beforeAppend.table, second)).rejects.toThrow('the consumer died here');
    expect(beforeAppend.hasFailed()).toBe(true);
    await maintainSimLists(table, second);

    // Dies in the middle of a fold (its second page write), after its append; the batch comes again, cut differently.
    const third = await changeSims(200, 80, 'inactive');
    let pageWrites = 0;
    const midFold = failingOnce((command, input) => /^Update(Item)?Command$/.test(command) && /SIMLI?T?C#/.test(input) && input.includes('#through') && (pageWrites += 1) === 2);
    await expect(maintainSimLists(midFold.table, third)).rejects.toThrow('the consumer died here');
    expect(midFold.hasFailed()).toBe(true);
    await maintainSimLists(table, third.slice(0, 50));
    await maintainSimLists(table, third.slice(30));
    await expectListsExact(table, requests, 10_000, 200);

    beforeAppend.client.destroy();
    midFold.client.destroy();
  }, 120_000);
});
