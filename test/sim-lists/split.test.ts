import { DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSeedDocument } from '../../local/seed/load';
import { seedItems } from '../../local/seed/items';
import { parseSeedDocument } from '../../local/seed/validate';
import { countCalls } from '../../shared/db/call-counter';
import type { SimItem } from '../../shared/db/items';
import { key, partition } from '../../shared/db/keys';
import { simIdOfEntry } from '../../shared/sim-lists/entries';
import { bucketBounds, cutTail, fenceItems, readGroupFences, splitBucket } from '../../shared/sim-lists/fences';
import { maintainSimLists, type SimChangeRecord } from '../../shared/sim-lists/maintain';
import { readList } from '../../shared/sim-lists/read-list';
import { changeSimsFields, putSims } from '../../shared/sims/sim-writes';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';
import { allSims, coveringRequests, expectListsExact, fleetSim, treeOf } from './support/fleet';

/**
 * A fleet whose ids do not come in order (issue #31, point 8): ids that come below the largest
 * one already bucketed land in a bucket inside the list, which the consumer splits once it holds
 * more than twice a bucket's size, moving the upper half's entries, so that every page reads as
 * few entries as a fleet built in order. Checked against a brute-force answer of every filter
 * and page, and with a writer whose fences a split changed under it, and a split whose move died
 * half-way. The consumer is called directly with the records the stream would carry, several
 * batches at once as shards are taken; faults and interleavings are made by a middleware on a
 * second client of the same DynamoDB Local, never mocked.
 *
 * It writes thousands of items: @dynamodb-local-of-its-own (test/support/dynamodb-lease.ts).
 */

const now = Date.now();
const tree = treeOf('s');
const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);
/** Buckets of 50 SIMs, split past 100 (the service's 500 and 1,000 at a tenth of the size), and a fold every 100 records. */
const bucketSize = 50;
const splitAt = 2 * bucketSize;
let table: { db: DynamoDBDocumentClient; tableName: string; journalFoldAt: number; idBucketSize: number };
/** The group's seeded SIMs: every tenth id up to 2,000, so that later ids can come between them. */
const seededIds = Array.from({ length: 200 }, (_, index) => (index + 1) * 10);

beforeAll(async () => {
  const tableName = await createTestTable({ stream: false });
  table = { db, tableName, journalFoldAt: 100, idBucketSize: bucketSize };
  const owners = [0, 1, 2, 3, 4, 5, 3, 4, 5].map((index) => tree[index]!.id);
  await loadSeedDocument(
    {
      customers: tree.map((customer) => ({ ...customer, sms_enabled: true })),
      sims: seededIds.map((id, index) => fleetSim(id, owners[index % owners.length]!, now - 86_400_000 + index)),
    },
    { client: dynamo, tableName },
  );
}, 120_000);

afterAll(() => dynamo.destroy());

/** SIM items for putSims, as the seed loader makes them. */
const simItems = (ids: readonly number[], at: number): SimItem[] => {
  const owners = [0, 3, 4, 5, 1, 2].map((index) => tree[index]!.id);
  return seedItems(
    parseSeedDocument({
      customers: tree.map((customer) => ({ ...customer, sms_enabled: true })),
      sims: ids.map((id, index) => fleetSim(id, owners[id % owners.length]!, at + index, index % 5 === 4 ? 'suspended' : 'active')),
    }),
  ).filter((item) => item.type === 'sim') as unknown as SimItem[];
};

/** New SIMs written through the SIM write path; their stream records. */
const created = async (ids: readonly number[]): Promise<SimChangeRecord[]> => (await putSims(table, simItems(ids, Date.now()), Date.now())).map((sim) => ({ new: sim }));

/** `ids` in an order that has nothing to do with them. */
const shuffled = (ids: number[]): number[] => ids.map((id, index) => ({ id, rank: (index * 7_919) % ids.length })).sort((left, right) => left.rank - right.rank).map(({ id }) => id);

/** The same table through a client that runs `before` once, ahead of the first call `matches` picks. */
const interleaved = (matches: (command: string, input: string) => boolean, before: () => Promise<unknown>) => {
  const client = testDynamoClient();
  let ran = false;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!ran && matches(String(context.commandName), JSON.stringify(args.input))) {
        ran = true;
        await before();
      }
      return next(args);
    },
    { step: 'initialize', name: 'interleave' },
  );
  return { table: { ...table, db: testDocumentClient(client) }, client, hasRun: () => ran };
};

/** Every entry of every id bucket of every list of the group: how many each bucket holds of its own ids, and the entries outside them. */
const idBuckets = async () => {
  const fences = (await readGroupFences(table, 's', true))!;
  const sizes: number[] = [];
  const strays: string[] = [];
  for (const customer of tree) {
    for (const [position, bucket] of fences.buckets.entries()) {
      const { from, to } = bucketBounds(fences.fences, position);
      const found = await db.send(new QueryCommand({ TableName: table.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': partition.simListIdBucket(customer.id, bucket) }, ConsistentRead: true }));
      const ids = (found.Items ?? []).map((item) => simIdOfEntry(String(item.SK)));
      for (const id of ids.filter((id) => id < from || (to !== undefined && id >= to))) strays.push(`${customer.id} bucket ${bucket}: ${id}`);
      if (customer.id === 's') sizes.push(ids.length);
    }
  }
  return { fences, sizes, strays };
};

/** Every customer's list, direct and not: all of it and its suspended SIMs in id order, all of it after an instant. */
const requests = () =>
  coveringRequests(tree, [now - 3_600_000], 20).filter((request) => (request.updatedAfter === undefined ? [undefined, 'suspended'] : [undefined]).includes(request.status));

describe('fences of a group with splits', () => {
  it('keep the number of every bucket through splits in META, in a sealed page and past a page of fences, sealing META as a cut does', async () => {
    // 256 fences in META (a page's worth, not sealed): ids 0, 10, ... 2,550, buckets 0 to 255.
    const fences = Array.from({ length: 256 }, (_, index) => index * 10);
    for (const item of fenceItems('f', fences, { maxId: 2_559, state: 'ready', buildStartedMs: 0 })) await db.send(new PutCommand({ TableName: table.tableName, Item: item }));
    const known = (await readGroupFences(table, 'f', true))!;
    expect({ sealed: known.meta.sealed_pages, fences: known.fences.length, last: known.buckets.at(-1) }).toEqual({ sealed: 0, fences: 256, last: 255 });

    // A split in META past a page's worth seals its first 256 fences into page 0.
    expect(await splitBucket(table, 'f', known, 200, 2_005)).toEqual({ source: 200, target: 256, from: 2_005, to: 2_010 });
    const sealed = (await readGroupFences(table, 'f', true))!;
    expect({ sealed: sealed.meta.sealed_pages, pages: sealed.sealed, meta: sealed.meta.fences, next: sealed.meta.next_bucket }).toEqual({ sealed: 1, pages: [256], meta: [2_550], next: 257 });
    expect(sealed.fences).toEqual([...fences.slice(0, 201), 2_005, ...fences.slice(201)]);
    expect(sealed.buckets).toEqual([...Array.from({ length: 201 }, (_, index) => index), 256, ...Array.from({ length: 55 }, (_, index) => 201 + index)]);

    // Another split, while the first one's move is marked, loses; once it is gone, a split inside the sealed page rewrites the page.
    expect(await splitBucket(table, 'f', sealed, 5, 55)).toBeUndefined();
    await db.send(new UpdateCommand({ TableName: table.tableName, Key: key.simListMeta('f'), UpdateExpression: 'REMOVE moving' }));
    const moved = (await readGroupFences(table, 'f', true))!;
    expect(await splitBucket(table, 'f', moved, 5, 55)).toEqual({ source: 5, target: 257, from: 55, to: 60 });
    const again = (await readGroupFences(table, 'f', true))!;
    expect({ pages: again.sealed, next: again.meta.next_bucket, at: again.fences.indexOf(55), bucket: again.buckets[again.fences.indexOf(55)] }).toEqual({ pages: [257], next: 258, at: 6, bucket: 257 });
    expect(again.positions.get(256)).toBe(again.fences.indexOf(2_005));
    // A cut above the largest id goes on numbering from next_bucket, beside the fences in META.
    await db.send(new UpdateCommand({ TableName: table.tableName, Key: key.simListMeta('f'), UpdateExpression: 'REMOVE moving' }));
    await cutTail(table, 'f', (await readGroupFences(table, 'f', true))!, 501);
    const cut = (await readGroupFences(table, 'f', true))!;
    expect({ meta: cut.meta.fences, numbers: cut.meta.buckets, next: cut.meta.next_bucket }).toEqual({ meta: [2_550, 2_560], numbers: [255, 258], next: 259 });
  });
});

describe('a fleet whose ids come in any order', () => {
  it('splits the buckets ids land in below the largest one, so that none holds more than its split size and every page is exact', async () => {
    // 400 new SIMs between the seeded ones and above them, in an order unrelated to their ids,
    // in batches of 25, three consumers at once, with status changes of seeded SIMs beside them.
    const ids = shuffled([...seededIds.map((id) => id + 3), ...Array.from({ length: 200 }, (_, index) => 2_011 + index)]);
    const batches: SimChangeRecord[][] = [];
    for (let start = 0; start < ids.length; start += 25) batches.push(await created(ids.slice(start, start + 25)));
    const seeded = (await allSims(db, table.tableName)).filter((sim) => seededIds.includes(sim.id)).slice(0, 40);
    const before = new Map(seeded.map((sim) => [sim.id, sim]));
    await changeSimsFields(table, seeded.map((current) => ({ current, fields: { status: 'trial' } })), Date.now());
    const after = (await allSims(db, table.tableName)).filter((sim) => before.has(sim.id));
    for (let start = 0; start < after.length; start += 20) batches.push(after.slice(start, start + 20).map((sim) => ({ old: before.get(sim.id), new: sim })));
    let next = 0;
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        while (next < batches.length) await maintainSimLists(table, batches[next++]!);
      }),
    );

    await expectListsExact(table, requests(), 60_000, 500);
    const { fences, sizes, strays } = await idBuckets();
    expect(fences.meta.moving).toBeUndefined();
    expect(fences.meta.next_bucket).toBeGreaterThan(fences.fences.length - 1);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(600);
    expect(sizes.filter((size) => size > splitAt)).toEqual([]);
    expect(strays).toEqual([]);
  }, 300_000);

  it('reads no more entries for a middle or last page than a bucket holds', async () => {
    const counter = countCalls(db, { capacity: true });
    const itemsRead: { prefix: string; count: number }[] = [];
    db.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues;
        if (String(values?.[':pk'] ?? '').startsWith('SIMLI#')) itemsRead.push({ prefix: String(values?.[':from']).slice(0, 2), count: (result.output as { Count?: number }).Count ?? 0 });
        return result;
      },
      { step: 'initialize', name: 'entriesRead' },
    );
    try {
      // A page reads its first bucket up to the page's end, and each prefix of the next up to a page's worth.
      for (const page of [15, 29]) {
        itemsRead.length = 0;
        const listed = await readList(table, { groupId: 's', customerId: 's', direct: false, page, pageSize: 20 });
        expect(listed?.ids).toHaveLength(20);
        const prefixes = new Set(itemsRead.map((read) => read.prefix)).size;
        expect(itemsRead.reduce((sum, read) => sum + read.count, 0)).toBeLessThanOrEqual(splitAt + 20 * prefixes);
      }
    } finally {
      counter.detach();
      db.middlewareStack.remove('entriesRead');
    }
  }, 60_000);

  it('places again the SIMs of a batch whose fences a split changed while it wrote, and finishes a move that died half-way', async () => {
    const taken = new Set((await allSims(db, table.tableName)).map((sim) => sim.id));
    /** Ids no SIM has in the bucket at `position`, lowest first; and how many SIMs of the group it holds. */
    const bucketAt = (position: number, { fences, sizes }: Awaited<ReturnType<typeof idBuckets>>) => {
      const { from, to = 2_211 } = bucketBounds(fences.fences, position);
      const free = Array.from({ length: to - from }, (_, index) => from + index).filter((id) => id > 0 && !taken.has(id));
      return { fences, size: sizes[position]!, free };
    };
    const take = (ids: number[]) => {
      for (const id of ids) taken.add(id);
      return ids;
    };

    // The first bucket fills past idBucketSplitAt with ids below the largest; meanwhile a writer
    // of ids near the top of that bucket has read the fences, and writes by them after the split.
    const first = bucketAt(0, await idBuckets());
    const splitting = await created(take(first.free.slice(0, splitAt + 10 - first.size)));
    const late = await created(take(first.free.slice(-8)));
    const writer = interleaved((command, input) => command === 'BatchWriteItemCommand' && input.includes('SIMLI#'), () => maintainSimLists(table, splitting));
    await maintainSimLists(writer.table, late);
    expect(writer.hasRun()).toBe(true);
    await expectListsExact(table, requests(), 60_000, 500);
    const placed = await idBuckets();
    expect(placed.fences.fences.length).toBeGreaterThan(first.fences.fences.length);
    expect(placed.sizes.filter((size) => size > splitAt)).toEqual([]);
    expect(placed.strays).toEqual([]);

    // A split whose move dies at its third transaction; the stream gives the batch again.
    const roomiest = placed.fences.fences.map((_fence, position) => bucketAt(position, placed)).reduce((most, bucket) => (bucket.free.length > most.free.length ? bucket : most));
    const last = roomiest;
    const filling = await created(take(last.free.slice(0, splitAt + 20 - last.size)));
    const client = testDynamoClient();
    let transactions = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (String(context.commandName) === 'TransactWriteItemsCommand' && JSON.stringify(args.input).includes('attribute_exists') && (transactions += 1) === 3) throw new Error('the mover died here');
        return next(args);
      },
      { step: 'initialize', name: 'dieMoving' },
    );
    await expect(maintainSimLists({ ...table, db: testDocumentClient(client) }, filling)).rejects.toThrow('the mover died here');
    expect((await readGroupFences(table, 's', true))!.meta.moving).toBeDefined();
    await maintainSimLists(table, filling);
    await expectListsExact(table, requests(), 60_000, 500);
    const finished = await idBuckets();
    expect(finished.fences.meta.moving).toBeUndefined();
    expect(finished.sizes.filter((size) => size > splitAt)).toEqual([]);
    expect(finished.strays).toEqual([]);
    expect(finished.sizes.reduce((sum, size) => sum + size, 0)).toBe(taken.size);
    writer.client.destroy();
    client.destroy();
  }, 300_000);
});
