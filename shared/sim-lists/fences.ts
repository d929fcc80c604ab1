import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, isTransactionCanceled, updatedUnlessConditionFails } from '../db/conditions';
import type { SimListFencePageItem, SimListMetaItem, SimListMove } from '../db/items';
import { key, partition, sortKeyPrefix } from '../db/keys';
import { fencesPerPage, idBucketSize, idBucketSplitAt, pageShards, pageShardsOf, pageSlots, pageSlotsOf } from './layout';

/** The table the list index lives in. */
export interface ListTable {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** Records a customer's count journal gathers before the consumer folds it into the pages (journal.ts; tests set few). */
  journalFoldAt?: number;
  /** Appends a customer's count journal gathers before the consumer folds it, however few records each holds (journal.ts journalFoldAppends; tests set few). */
  journalFoldAppends?: number;
  /** SIMs of a group an id bucket holds before the consumer cuts a new one, and half of what it holds before it splits it (layout.ts idBucketSize; tests set few). */
  idBucketSize?: number;
}

/** The SIMs a group's last id bucket holds before it is cut (layout.ts idBucketSize, or the table's). */
export const bucketSizeOf = (table: ListTable): number => table.idBucketSize ?? idBucketSize;
/** The SIMs an id bucket holds before it is split (layout.ts idBucketSplitAt, or twice the table's bucket size). */
export const splitAtOf = (table: ListTable): number => (table.idBucketSize === undefined ? idBucketSplitAt : 2 * table.idBucketSize);

/**
 * A customer group's id fences, ascending: the ids from `fences[i]` up to the next fence (the
 * last has no end) are bucket `buckets[i]`. A bucket's number never changes, so its entries'
 * partition and its count slot stay where they are; numbers follow the fences (`buckets[i]` is
 * `i`) until a bucket is split (splitBucket), whose new upper part takes the next number. A
 * fence is added above `maxId`, the largest id ever bucketed, when the last bucket fills
 * (cutTail: no entry moves), or inside a bucket that grew past idBucketSplitAt because ids
 * came below `maxId` (splitBucket: the entries above the new fence move to the new bucket).
 */
export interface GroupFences {
  meta: SimListMetaItem;
  fences: number[];
  /** The bucket number of each fence. */
  buckets: number[];
  /** The position in `fences` of each bucket number. */
  positions: Map<number, number>;
  /** How many fences each sealed page holds, in page order (the rest are META's). */
  sealed: number[];
  /** Buckets per count page of the group's index (layout.ts pageSlotsOf of its META). */
  slots: number;
  /** Count partitions per list of the group's index (layout.ts pageShardsOf of its META). */
  shards: number;
}

/**
 * The position of a SIM id's fence: the last fence at or below it (binary search). The first
 * fence is always 0, so every id has one. Its bucket number is `buckets[position]`.
 */
export const bucketOfId = (fences: readonly number[], simId: number): number => {
  let low = 0;
  let high = fences.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fences[middle]! <= simId) low = middle;
    else high = middle - 1;
  }
  return low;
};

/** The ids of the bucket whose fence is at `position`: from its fence up to (not including) the next one. */
export const bucketBounds = (fences: readonly number[], position: number): { from: number; to?: number } => ({
  from: fences[position]!,
  ...(position + 1 < fences.length ? { to: fences[position + 1]! } : {}),
});

/** The number the next new bucket gets (a cut or a split). */
export const nextBucketOf = (known: Pick<GroupFences, 'meta' | 'fences'>): number => known.meta.next_bucket ?? known.fences.length;

/**
 * Fences that cut the ascending ids `ids` into buckets of `idBucketSize` (bulk builds and
 * `rebuild-list-index`): 0, then every idBucketSize-th id.
 */
export const fencesForIds = (ids: ArrayLike<number>): number[] => {
  const fences = [0];
  for (let index = idBucketSize; index < ids.length; index += idBucketSize) fences.push(ids[index]!);
  return fences;
};

/** The META and sealed fence page items of a group whose fences are `fences` (bulk builds). */
export const fenceItems = (
  groupId: string,
  fences: readonly number[],
  options: { maxId: number; state: SimListMetaItem['state']; buildStartedMs: number },
): (SimListMetaItem | SimListFencePageItem)[] => {
  const sealedPages = Math.floor(Math.max(0, fences.length - 1) / fencesPerPage);
  const pages: SimListFencePageItem[] = Array.from({ length: sealedPages }, (_, page) => ({
    ...key.simListFences(groupId, page),
    type: 'sim_list_fences',
    page,
    fences: fences.slice(page * fencesPerPage, (page + 1) * fencesPerPage),
  }));
  const meta: SimListMetaItem = {
    ...key.simListMeta(groupId),
    type: 'sim_list_meta',
    group_id: groupId,
    state: options.state,
    build_started_ms: options.buildStartedMs,
    fences: fences.slice(sealedPages * fencesPerPage),
    sealed_pages: sealedPages,
    max_id: options.maxId,
    version: 0,
    page_slots: pageSlots,
    page_shards: pageShards,
  };
  return [...pages, meta];
};

/** A group's META item (strongly consistent); undefined when the group has no list index. */
export const readListMeta = async (table: ListTable, groupId: string): Promise<SimListMetaItem | undefined> => {
  const found = await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.simListMeta(groupId), ConsistentRead: true }));
  return found.Item?.type === 'sim_list_meta' ? (found.Item as SimListMetaItem) : undefined;
};

/**
 * A group's META and all its fences in one Query (the sealed pages sort before META); undefined
 * when the group has no list index. Eventually consistent unless asked: readers tolerate a
 * fence list a moment old (new fences only cut above every id it counted).
 */
export const readGroupFences = async (table: ListTable, groupId: string, consistent = false): Promise<GroupFences | undefined> => {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.db.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :meta',
        ExpressionAttributeValues: { ':pk': partition.simList(groupId), ':from': sortKeyPrefix.simListFences, ':meta': 'META' },
        ConsistentRead: consistent,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return fencesFromItems(items);
};

/** The bucket numbers of a fence list item: its own, or (written before any split) those of the fences' places when it was written. */
const numbersOf = (fences: readonly unknown[], buckets: readonly unknown[] | undefined, first: number): number[] =>
  buckets && buckets.length === fences.length ? buckets.map(Number) : fences.map((_fence, index) => first + index);

/** A group's fences from its META and its sealed pages' fences and numbers, in page order. */
const groupFences = (meta: SimListMetaItem, pages: readonly { fences: number[]; buckets: number[] }[]): GroupFences => {
  const fences = [...pages.flatMap((page) => page.fences), ...meta.fences.map(Number)];
  const buckets = [...pages.flatMap((page) => page.buckets), ...numbersOf(meta.fences, meta.buckets, meta.sealed_pages * fencesPerPage)];
  return {
    meta,
    fences,
    buckets,
    positions: new Map(buckets.map((bucket, position) => [bucket, position])),
    sealed: pages.map((page) => page.fences.length),
    slots: pageSlotsOf(meta),
    shards: pageShardsOf(meta),
  };
};

/** The fences of a group from its sealed pages and META (in key order); undefined without META. */
export const fencesFromItems = (items: readonly Record<string, unknown>[]): GroupFences | undefined => {
  const meta = items.find((item) => item.type === 'sim_list_meta') as SimListMetaItem | undefined;
  if (!meta) return undefined;
  const pages = (items.filter((item) => item.type === 'sim_list_fences') as unknown as SimListFencePageItem[])
    .filter((page) => page.page < meta.sealed_pages)
    .sort((left, right) => left.page - right.page);
  return groupFences(
    meta,
    pages.map((page) => ({ fences: page.fences.map(Number), buckets: numbersOf(page.fences, page.buckets, page.page * fencesPerPage) })),
  );
};

/** The fences and numbers of each sealed page of `known`. */
const sealedPages = (known: GroupFences): { fences: number[]; buckets: number[] }[] => {
  let start = 0;
  return known.sealed.map((count) => {
    const page = { fences: known.fences.slice(start, start + count), buckets: known.buckets.slice(start, start + count) };
    start += count;
    return page;
  });
};

/** How many of `known`'s fences are on sealed pages. */
const sealedCount = (known: GroupFences): number => known.sealed.reduce((sum, count) => sum + count, 0);

/**
 * Makes sure `simId` is at or below the group's `max_id` before it is bucketed (a new id above
 * every id counted so far): raises `max_id` to it with a conditional write and answers the
 * group's fences as they are after it. The bucket of the id cannot change afterwards, since
 * fences are only cut above `max_id`.
 */
export const coverId = async (table: ListTable, groupId: string, simId: number, known: GroupFences): Promise<GroupFences> => {
  if (simId <= known.meta.max_id) return known;
  const meta = await updatedUnlessConditionFails<SimListMetaItem>(table, {
    Key: key.simListMeta(groupId),
    UpdateExpression: 'SET max_id = :id',
    ConditionExpression: 'attribute_exists(PK) AND max_id < :id',
    ExpressionAttributeValues: { ':id': simId },
  });
  if (meta) return withMeta(table, groupId, known, meta);
  const fresh = await readGroupFences(table, groupId, true);
  if (!fresh) throw new Error(`customer group ${groupId} has no list index`);
  return fresh;
};

/** `known` with a newer META: the sealed pages read again when more were sealed or one was split since. */
const withMeta = async (table: ListTable, groupId: string, known: GroupFences, meta: SimListMetaItem): Promise<GroupFences> => {
  if (meta.sealed_pages !== known.meta.sealed_pages || (meta.next_bucket ?? 0) !== (known.meta.next_bucket ?? 0)) {
    const fresh = await readGroupFences(table, groupId, true);
    if (fresh) return fresh;
  }
  return groupFences(meta, sealedPages(known));
};

/**
 * Cuts a new bucket above the group's largest id when its last bucket holds more than
 * `idBucketSize` SIMs of the group (`lastBucketCount`), so that new ids fill a fresh bucket.
 * Conditional on the META the caller saw: losing to another writer is fine (one of them cut).
 * Seals the unsealed fences into a page once there are `fencesPerPage` of them. Once the group
 * has had a split, the fences' numbers are written beside them.
 */
export const cutTail = async (table: ListTable, groupId: string, known: GroupFences, lastBucketCount: number): Promise<void> => {
  const { meta } = known;
  if (lastBucketCount <= bucketSizeOf(table)) return;
  const fence = meta.max_id + 1;
  const unsealed = [...meta.fences.map(Number), fence];
  const numbered = meta.next_bucket !== undefined;
  const numbers = [...known.buckets.slice(sealedCount(known)), nextBucketOf(known)];
  const numbering = (buckets: number[]) => (numbered ? { ':buckets': buckets, ':next': nextBucketOf(known) + 1 } : {});
  const setNumbers = numbered ? ', buckets = :buckets, next_bucket = :next' : '';
  try {
    if (unsealed.length <= fencesPerPage) {
      await table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: key.simListMeta(groupId),
          UpdateExpression: `SET fences = :fences, version = version + :one${setNumbers}`,
          ConditionExpression: 'version = :version AND max_id = :max',
          ExpressionAttributeValues: { ':fences': unsealed, ':one': 1, ':version': meta.version, ':max': meta.max_id, ...numbering(numbers) },
        }),
      );
      return;
    }
    const page: SimListFencePageItem = {
      ...key.simListFences(groupId, meta.sealed_pages),
      type: 'sim_list_fences',
      page: meta.sealed_pages,
      fences: unsealed.slice(0, fencesPerPage),
      ...(numbered ? { buckets: numbers.slice(0, fencesPerPage) } : {}),
    };
    await table.db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table.tableName, Item: page, ConditionExpression: 'attribute_not_exists(PK)' } },
          {
            Update: {
              TableName: table.tableName,
              Key: key.simListMeta(groupId),
              UpdateExpression: `SET fences = :fences, sealed_pages = sealed_pages + :one, version = version + :one${setNumbers}`,
              ConditionExpression: 'version = :version AND max_id = :max',
              ExpressionAttributeValues: {
                ':fences': unsealed.slice(fencesPerPage),
                ':one': 1,
                ':version': meta.version,
                ':max': meta.max_id,
                ...numbering(numbers.slice(fencesPerPage)),
              },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error) && !isTransactionCanceled(error)) throw error;
  }
};

/**
 * Splits the bucket whose fence is at `position` at the id `at` (above its fence, below its
 * end): the ids from `at` on become a bucket of their own with the next number, whose entries
 * are then moved there (./bucket-split.ts moveSplitEntries, from the `moving` mark this leaves
 * on META). Conditional on the META the caller saw and on no other split moving at the time:
 * undefined when it lost (nothing written). A split inside a sealed page rewrites that page (which
 * may then hold more than fencesPerPage); META's fences are sealed into a page once they are more
 * than that. Every fence list written from then on carries its numbers.
 */
export const splitBucket = async (table: ListTable, groupId: string, known: GroupFences, position: number, at: number): Promise<SimListMove | undefined> => {
  const { meta, fences } = known;
  const { from, to } = bucketBounds(fences, position);
  if (!(at > from) || (to !== undefined && !(at < to))) throw new Error(`split point ${at} is not inside bucket ${known.buckets[position]} (${from} to ${to ?? 'the end'})`);
  const target = nextBucketOf(known);
  const move: SimListMove = { source: known.buckets[position]!, target, from: at, ...(to === undefined ? {} : { to }) };
  const insert = <T>(list: readonly T[], index: number, value: T): T[] => [...list.slice(0, index), value, ...list.slice(index)];
  const sealed = sealedCount(known);
  const metaFences = fences.slice(sealed);
  const metaNumbers = known.buckets.slice(sealed);
  const metaUpdate = (newFences: number[], newNumbers: number[], sealing = false) => ({
    TableName: table.tableName,
    Key: key.simListMeta(groupId),
    UpdateExpression: `SET fences = :fences, buckets = :buckets, next_bucket = :next, version = version + :one, moving = :move${sealing ? ', sealed_pages = sealed_pages + :one' : ''}`,
    ConditionExpression: 'version = :version AND attribute_not_exists(moving)',
    ExpressionAttributeValues: { ':fences': newFences, ':buckets': newNumbers, ':next': target + 1, ':one': 1, ':version': meta.version, ':move': move },
  });
  try {
    if (position >= sealed) {
      const index = position - sealed + 1;
      const newFences = insert(metaFences, index, at);
      const newNumbers = insert(metaNumbers, index, target);
      if (newFences.length <= fencesPerPage) {
        await table.db.send(new UpdateCommand(metaUpdate(newFences, newNumbers)));
        return move;
      }
      // META's fences sealed into a page once there are more than a page's worth, as cutTail does.
      const page: SimListFencePageItem = {
        ...key.simListFences(groupId, meta.sealed_pages),
        type: 'sim_list_fences',
        page: meta.sealed_pages,
        fences: newFences.slice(0, fencesPerPage),
        buckets: newNumbers.slice(0, fencesPerPage),
      };
      await table.db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table.tableName, Item: page, ConditionExpression: 'attribute_not_exists(PK)' } },
            { Update: metaUpdate(newFences.slice(fencesPerPage), newNumbers.slice(fencesPerPage), true) },
          ],
        }),
      );
      return move;
    }
    let start = 0;
    let page = 0;
    while (start + known.sealed[page]! <= position) start += known.sealed[page++]!;
    const pages = sealedPages(known);
    const index = position - start + 1;
    await table.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table.tableName,
              Key: key.simListFences(groupId, page),
              UpdateExpression: 'SET fences = :fences, buckets = :buckets',
              ExpressionAttributeValues: { ':fences': insert(pages[page]!.fences, index, at), ':buckets': insert(pages[page]!.buckets, index, target) },
            },
          },
          { Update: metaUpdate(metaFences, metaNumbers) },
        ],
      }),
    );
    return move;
  } catch (error) {
    if (isConditionFailure(error) || isTransactionCanceled(error)) return undefined;
    throw error;
  }
};
