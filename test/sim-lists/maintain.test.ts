import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { key } from '../../shared/db/keys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedDocument } from '../../local/seed/load';
import type { StreamReader } from '../../local/stream-reader';
import { readGroupFences } from '../../shared/sim-lists/fences';
import { foldJournal, readJournal } from '../../shared/sim-lists/journal';
import { changeSim } from '../../shared/sims/change-sim';
import { readSimByIccid } from '../../shared/sims/sim-by-iccid';
import { putSims, removeSim } from '../../shared/sims/sim-writes';
import { seedItems } from '../../local/seed/items';
import { parseSeedDocument } from '../../local/seed/validate';
import type { SimItem } from '../../shared/db/items';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';
import { coveringRequests, expectListsExact, fleetSeed, fleetSim, startListConsumer, treeOf } from './support/fleet';

/**
 * The list index kept by the table's stream (issue #19, point 3): writers change SIMs in
 * parallel through the SIM write path while the consumer runs (the local stream reader, as
 * `npm start` runs it), then every count and page of every filter is compared with a
 * brute-force answer computed from the SIM items. Each customer's count journal is folded
 * every few dozen records, so that folds race the appends and the readers throughout.
 *
 * It writes thousands of items: @dynamodb-local-of-its-own (test/support/dynamodb-lease.ts).
 */

const now = Date.now();
const tree = treeOf('g');
const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);
/** Few records a journal before a fold, so that folds run all the time beside the appends (journal.ts). */
const journalFoldAt = 40;
let table: { db: DynamoDBDocumentClient; tableName: string; journalFoldAt: number };
let reader: StreamReader | undefined;

beforeAll(async () => {
  const tableName = await createTestTable();
  table = { db, tableName, journalFoldAt };
  await loadSeedDocument(fleetSeed(tree, 1_200, { firstId: 1, now }), { client: dynamo, tableName });
  ({ reader } = await startListConsumer(table, dynamo));
}, 120_000);

afterAll(async () => {
  await reader?.stop();
  dynamo.destroy();
});

/** SIM items as the seed loader makes them (customer names and paths from the tree), for putSims. */
const newSims = (ids: number[], customer: string, updatedAtMs: number): SimItem[] =>
  seedItems(
    parseSeedDocument({ customers: tree.map((entry) => ({ ...entry, sms_enabled: true })), sims: ids.map((id) => fleetSim(id, customer, updatedAtMs)) }),
  ).filter((item) => item.type === 'sim') as unknown as SimItem[];

const iccidOf = (id: number) => `89440${String(id).padStart(14, '0')}`;

describe('the list index under parallel writers', () => {
  it('keeps every count and page of every filter exact through status changes, owner moves, new and removed SIMs', async () => {
    const writes: Promise<unknown>[] = [];
    const statuses = ['active', 'suspended', 'inactive', 'trial'] as const;
    for (let index = 0; index < 120; index += 1) {
      writes.push(changeSim(table, iccidOf(1 + ((index * 37) % 1_200)), { status: statuses[index % statuses.length] }, Date.now()));
    }
    for (let index = 0; index < 40; index += 1) {
      writes.push(changeSim(table, iccidOf(1 + ((index * 53 + 11) % 1_200)), { customer: tree[(index % 5) + 1]!.id }, Date.now()));
    }
    for (let batch = 0; batch < 8; batch += 1) {
      const ids = Array.from({ length: 50 }, (_, index) => 1_201 + batch * 50 + index);
      writes.push(putSims(table, newSims(ids, tree[(batch % 5) + 1]!.id, Date.now()), Date.now()));
    }
    // Ids inside the seeded range too (a bucket in the middle grows).
    writes.push(putSims(table, newSims([100_000, 100_001], tree[3]!.id, Date.now()), Date.now()));
    for (let index = 0; index < 25; index += 1) {
      writes.push(
        (async () => {
          const sim = await readSimByIccid(table, iccidOf(1 + ((index * 97 + 5) % 1_200)));
          if (sim) await removeSim(table, sim.id);
        })(),
      );
    }
    for (let index = 0; index < 60; index += 1) {
      writes.push(changeSim(table, iccidOf(1 + ((index * 71 + 3) % 1_200)), { data_used_mb: `${index}.50` }, Date.now()));
    }
    const outcomes = await Promise.allSettled(writes);
    // Some writes may lose to a removal of the same SIM; every other one succeeds.
    expect(outcomes.filter((outcome) => outcome.status === 'rejected' && !/no SIM/.test(String(outcome.reason)))).toEqual([]);

    const requests = coveringRequests(tree, [now - 3 * 86_400_000, now - 3_600_000, Date.now() - 60_000], 100);
    // The consumer has read the stream within a second or two when the machine is idle; the whole
    // suite on two cores slows DynamoDB Local several times over, hence the wait allowed.
    await expectListsExact(table, requests, 240_000, 1_000);

    // Folds ran while the writers and readers did.
    const head = (await db.send(new GetCommand({ TableName: table.tableName, Key: key.simListJournalHead('g'), ConsistentRead: true }))).Item;
    expect(head?.done).toBeGreaterThan(0);

    // Two more folds of every journal (the second deletes what the first folded): the pages alone hold the same counts.
    const layout = await readGroupFences(table, 'g', true);
    for (let round = 0; round < 2; round += 1) await Promise.all(tree.map((customer) => foldJournal(table, customer.id, layout!)));
    for (const customer of tree) expect({ customer: customer.id, journal: await readJournal(table, customer.id) }).toEqual({ customer: customer.id, journal: [] });
    await expectListsExact(table, requests, 10_000, 1_000);

    // The new ids beyond the last bucket were cut into a bucket of their own.
    const fences = await readGroupFences(table, 'g', true);
    expect(fences!.fences.length).toBeGreaterThan(3);
    expect(fences!.meta.max_id).toBe(100_001);
  }, 300_000);
});
