/**
 * Moving the entries of a split bucket (issue #31, point 8; docs/area-a.md, "Keeping them
 * exact"). A group's id buckets are cut at 500 SIMs when ids come in order; ids that come below
 * the largest one already bucketed (a fleet sent in random order, in bursts, or backwards) join
 * the bucket that covers them, which then grows past idBucketSplitAt. The consumer then splits
 * it (fences.ts splitBucket: a fence at its middle id, the upper part a bucket of its own, a
 * `moving` mark on META) and moves the upper part's entries here, in every list of the group.
 *
 * Why it is exact:
 * - Each entry moves in one transaction: deleted from the old bucket on the condition that it is
 *   still there, and put in the new one. An entry its SIM's writer deleted meanwhile is not
 *   brought back, and none is both in the old and the new bucket.
 * - A writer that placed entries with the fences from before the split sees META's version move
 *   after its writes, and writes its SIMs' entries again as the new fences place them
 *   (./maintain.ts), deleting what it put in the old bucket: whichever of it and the move comes
 *   last, each SIM ends with the entries of its last image, in the new bucket.
 * - Readers and recounts take only the ids of a bucket's range from its partition, so an entry
 *   not yet moved, or put there a moment late, is neither listed nor counted twice.
 * - The mark stays until every entry has moved and both buckets are counted again; the consumer
 *   finishes a move it finds marked (a batch that died half-way is given again), and moving
 *   twice changes nothing.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, maxBatchGetKeys } from '../db/batch-get';
import { cancellationCodes, isConditionFailure, isTransactionCanceled } from '../db/conditions';
import type { SimListMove } from '../db/items';
import { key, partition } from '../db/keys';
import { queryPages } from '../db/query-pages';
import { concurrencyLimit } from '../async/limit';
import { idCountSlot, simIdOfEntry } from './entries';
import { bucketSizeOf, readGroupFences, splitAtOf, splitBucket, type GroupFences, type ListTable } from './fences';
import { countBucket } from './bucket-recount';
import { appendRecounts, type TouchedBucket } from './journal';
import { prefixesFor } from './layout';

/** Entries moved per TransactWriteItems call (two actions each: DynamoDB takes at most 100). */
const entriesPerTransaction = 25;
/** Lists (customers) moved at once. */
const parallelLists = 4;

/** What a move did: the entries it moved, in how many of the group's lists. */
export interface MoveResult {
  entriesMoved: number;
  lists: number;
}

/** The sort keys of a bucket partition's entries whose ids are in the moved range (strongly consistent). */
const entriesToMove = async (table: ListTable, partitionKey: string, move: SimListMove): Promise<string[]> => {
  const keys: string[] = [];
  for await (const items of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': partitionKey },
    ProjectionExpression: 'SK',
    ConsistentRead: true,
  })) {
    for (const item of items) {
      const simId = simIdOfEntry(String(item.SK));
      if (simId >= move.from && (move.to === undefined || simId < move.to)) keys.push(String(item.SK));
    }
  }
  return keys;
};

/**
 * The customers whose lists hold the moved SIMs: every customer on the path of each SIM of the
 * group's own list in the moved range, still in the old bucket or already in the new one
 * (their items, strongly consistent), so that a move run again after one that stopped half-way
 * still counts every list.
 */
const listsOfMovedSims = async (table: ListTable, groupId: string, move: SimListMove): Promise<string[]> => {
  const [left, arrived] = await Promise.all([
    entriesToMove(table, partition.simListIdBucket(groupId, move.source), move),
    entriesToMove(table, partition.simListIdBucket(groupId, move.target), move),
  ]);
  const ids = [...new Set([...left, ...arrived].map(simIdOfEntry))];
  const customers = new Set<string>([groupId]);
  for (let start = 0; start < ids.length; start += maxBatchGetKeys) {
    const sims = await batchGetItems(table.db, table.tableName, ids.slice(start, start + maxBatchGetKeys).map(key.sim), {
      consistentRead: true,
      projection: 'customer_path',
    });
    for (const sim of sims) for (const customerId of (sim.customer_path as string[] | undefined) ?? []) customers.add(customerId);
  }
  return [...customers];
};

/** Moves entries of one list in one transaction each group of them; an entry gone from the source meanwhile is skipped. Returns how many moved. */
const moveEntries = async (table: ListTable, customerId: string, move: SimListMove, sortKeys: readonly string[]): Promise<number> => {
  const source = partition.simListIdBucket(customerId, move.source);
  const target = partition.simListIdBucket(customerId, move.target);
  const actions = (sortKey: string) => [
    { Delete: { TableName: table.tableName, Key: { PK: source, SK: sortKey }, ConditionExpression: 'attribute_exists(PK)' } },
    { Put: { TableName: table.tableName, Item: { PK: target, SK: sortKey } } },
  ];
  const send = (group: readonly string[]) => table.db.send(new TransactWriteCommand({ TransactItems: group.flatMap(actions) }));
  let moved = 0;
  for (let start = 0; start < sortKeys.length; start += entriesPerTransaction) {
    const group = sortKeys.slice(start, start + entriesPerTransaction);
    try {
      await send(group);
      moved += group.length;
    } catch (error) {
      if (!isTransactionCanceled(error)) throw error;
      // Some entry was deleted by its writer meanwhile (or another move took it): each alone.
      const codes = cancellationCodes(error);
      for (const [index, sortKey] of group.entries()) {
        if (codes[index * 2] === 'ConditionalCheckFailed') continue;
        try {
          await send([sortKey]);
          moved += 1;
        } catch (single) {
          if (!isTransactionCanceled(single)) throw single;
        }
      }
    }
  }
  return moved;
};

/**
 * Moves the entries a split left marked on META (`move`) to their new bucket in every list of
 * the group, counts both buckets of each list again (its count journal, ./journal.ts), then
 * takes the mark away. `known`: the group's fences from after the split. Safe to run again, and
 * by several consumers at once.
 */
export const moveSplitEntries = async (table: ListTable, groupId: string, move: SimListMove, known: GroupFences): Promise<MoveResult> => {
  const sourceAt = known.positions.get(move.source);
  const targetAt = known.positions.get(move.target);
  if (sourceAt === undefined || targetAt === undefined) throw new Error(`the fences of ${groupId} have no bucket ${move.source} or ${move.target} of the split being moved`);
  const limit = concurrencyLimit(parallelLists);
  const results = await Promise.all(
    (await listsOfMovedSims(table, groupId, move)).map((customerId) =>
      limit(async () => {
        const sortKeys = await entriesToMove(table, partition.simListIdBucket(customerId, move.source), move);
        const moved = await moveEntries(table, customerId, move, sortKeys);
        // Both buckets counted again, every prefix (a move run again after one that died before its count knows no moved prefix).
        const prefixes = prefixesFor({ direct: false });
        const touched: TouchedBucket[] = [
          { slot: idCountSlot(customerId, move.source, sourceAt, known), prefixes: new Set(prefixes), put: false },
          { slot: idCountSlot(customerId, move.target, targetAt, known), prefixes: new Set(prefixes), put: true },
        ];
        await appendRecounts(table, customerId, touched, known);
        return moved;
      }),
    ),
  );
  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key.simListMeta(groupId),
        UpdateExpression: 'REMOVE moving',
        ConditionExpression: 'moving.target = :target',
        ExpressionAttributeValues: { ':target': move.target },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  return { entriesMoved: results.reduce((sum, moved) => sum + moved, 0), lists: results.filter((moved) => moved > 0).length };
};

/** Rounds of splitOverfull in one consumer batch (each a split, or a move finished). */
const maxSplitRounds = 12;

/** What splitOverfull did. */
export interface SplitResult {
  bucketsSplit: number;
  entriesMoved: number;
}

/**
 * Splits the group's id buckets `over` (numbers a recount found holding more than the table's
 * split size) until none does, each at its middle id (counted again first: another consumer
 * may have split it meanwhile), and moves each split's entries; a move left marked by another
 * consumer, or by a batch that died half-way, is finished first (one split moves at a time).
 * A bucket many times too big (one grown before splits existed) gives its top bucket's worth
 * each time, so that each of its entries moves once, and is looked at again until its parts are
 * of the right size. At most maxSplitRounds rounds a batch: the next batch that touches a bucket
 * still too big goes on.
 */
export const splitOverfull = async (table: ListTable, groupId: string, over: readonly number[]): Promise<SplitResult> => {
  const result: SplitResult = { bucketsSplit: 0, entriesMoved: 0 };
  const pending = new Set(over);
  for (let round = 1; round <= maxSplitRounds; round += 1) {
    const fences = await readGroupFences(table, groupId, true);
    if (!fences) return result;
    if (fences.meta.moving) {
      result.entriesMoved += (await moveSplitEntries(table, groupId, fences.meta.moving, fences)).entriesMoved;
      continue;
    }
    const bucket = pending.values().next();
    if (bucket.done) return result;
    const position = fences.positions.get(bucket.value);
    const recount = position === undefined ? undefined : await countBucket(table, idCountSlot(groupId, bucket.value, position, fences));
    const ids = recount?.ids ?? [];
    // Its upper half, or of a bucket many times too big its top bucket's worth: every entry moves once.
    const cut = Math.max(Math.floor(ids.length / 2), ids.length - bucketSizeOf(table));
    const at = ids[cut];
    if (position === undefined || ids.length <= splitAtOf(table) || at === undefined || at <= fences.fences[position]!) {
      pending.delete(bucket.value);
      continue;
    }
    const move = await splitBucket(table, groupId, fences, position, at);
    if (!move) continue;
    result.bucketsSplit += 1;
    if (ids.length - cut > splitAtOf(table)) pending.add(move.target);
  }
  const fences = await readGroupFences(table, groupId, true);
  if (fences?.meta.moving) result.entriesMoved += (await moveSplitEntries(table, groupId, fences.meta.moving, fences)).entriesMoved;
  return result;
};

/** A group's META version (strongly consistent; undefined without META): it moves whenever its fences change. */
export const fencesVersion = async (table: ListTable, groupId: string): Promise<number | undefined> => {
  const found = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: key.simListMeta(groupId), ProjectionExpression: 'version', ConsistentRead: true }),
  );
  return typeof found.Item?.version === 'number' ? found.Item.version : undefined;
};
