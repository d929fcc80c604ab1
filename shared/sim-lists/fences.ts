import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, isTransactionCanceled, updatedUnlessConditionFails } from '../db/conditions';
import type { SimListFencePageItem, SimListMetaItem } from '../db/items';
import { key, partition, sortKeyPrefix } from '../db/keys';
import { fencesPerPage, idBucketSize, pageShards, pageShardsOf, pageSlots, pageSlotsOf } from './layout';

/** The table the list index lives in. */
export interface ListTable {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** Records a customer's count journal gathers before the consumer folds it into the pages (journal.ts; tests set few). */
  journalFoldAt?: number;
}

/**
 * A customer group's id fences: bucket `i` holds the ids from `fences[i]` up to the next
 * fence (the last bucket has no end). Fences are only ever added above `maxId`, the largest id
 * ever bucketed, so the bucket of an id at or below `maxId` never changes.
 */
export interface GroupFences {
  meta: SimListMetaItem;
  fences: number[];
  /** Buckets per count page of the group's index (layout.ts pageSlotsOf of its META). */
  slots: number;
  /** Count partitions per list of the group's index (layout.ts pageShardsOf of its META). */
  shards: number;
}

/**
 * The bucket of a SIM id: the last fence at or below it (binary search). The first fence is
 * always 0, so every id has one.
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

/** The ids of bucket `bucket`: from its fence up to (not including) the next one. */
export const bucketBounds = (fences: readonly number[], bucket: number): { from: number; to?: number } => ({
  from: fences[bucket]!,
  ...(bucket + 1 < fences.length ? { to: fences[bucket + 1]! } : {}),
});

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

/** The fences of a group from its sealed pages and META (in key order); undefined without META. */
export const fencesFromItems = (items: readonly Record<string, unknown>[]): GroupFences | undefined => {
  const meta = items.find((item) => item.type === 'sim_list_meta') as SimListMetaItem | undefined;
  if (!meta) return undefined;
  const pages = (items.filter((item) => item.type === 'sim_list_fences') as unknown as SimListFencePageItem[])
    .filter((page) => page.page < meta.sealed_pages)
    .sort((left, right) => left.page - right.page);
  return { meta, fences: [...pages.flatMap((page) => page.fences.map(Number)), ...meta.fences.map(Number)], slots: pageSlotsOf(meta), shards: pageShardsOf(meta) };
};

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

/** `known` with a newer META: the sealed pages read again only when more were sealed. */
const withMeta = async (table: ListTable, groupId: string, known: GroupFences, meta: SimListMetaItem): Promise<GroupFences> => {
  if (meta.sealed_pages !== known.meta.sealed_pages) {
    const fresh = await readGroupFences(table, groupId, true);
    if (fresh) return fresh;
  }
  const sealed = known.fences.slice(0, known.meta.sealed_pages * fencesPerPage);
  return { meta, fences: [...sealed, ...meta.fences.map(Number)], slots: pageSlotsOf(meta), shards: pageShardsOf(meta) };
};

/**
 * Cuts a new bucket above the group's largest id when its last bucket holds more than
 * `idBucketSize` SIMs of the group (`lastBucketCount`), so that new ids fill a fresh bucket.
 * Conditional on the META the caller saw: losing to another writer is fine (one of them cut).
 * Seals the unsealed fences into a page once there are `fencesPerPage` of them.
 */
export const cutTail = async (table: ListTable, groupId: string, known: GroupFences, lastBucketCount: number): Promise<void> => {
  const { meta } = known;
  if (lastBucketCount <= idBucketSize) return;
  const fence = meta.max_id + 1;
  const unsealed = [...meta.fences.map(Number), fence];
  try {
    if (unsealed.length <= fencesPerPage) {
      await table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: key.simListMeta(groupId),
          UpdateExpression: 'SET fences = :fences, version = version + :one',
          ConditionExpression: 'version = :version AND max_id = :max',
          ExpressionAttributeValues: { ':fences': unsealed, ':one': 1, ':version': meta.version, ':max': meta.max_id },
        }),
      );
      return;
    }
    const page: SimListFencePageItem = {
      ...key.simListFences(groupId, meta.sealed_pages),
      type: 'sim_list_fences',
      page: meta.sealed_pages,
      fences: unsealed.slice(0, fencesPerPage),
    };
    await table.db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table.tableName, Item: page, ConditionExpression: 'attribute_not_exists(PK)' } },
          {
            Update: {
              TableName: table.tableName,
              Key: key.simListMeta(groupId),
              UpdateExpression: 'SET fences = :fences, sealed_pages = sealed_pages + :one, version = version + :one',
              ConditionExpression: 'version = :version AND max_id = :max',
              ExpressionAttributeValues: { ':fences': unsealed.slice(fencesPerPage), ':one': 1, ':version': meta.version, ':max': meta.max_id },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error) && !isTransactionCanceled(error)) throw error;
  }
};
