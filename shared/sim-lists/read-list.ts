import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SimListMetaItem } from '../db/items';
import { key, padId, partition } from '../db/keys';
import { queryPages } from '../db/query-pages';
import { simIdOfEntry, updatedAtOfTimeEntry } from './entries';
import { readGroupFences, type ListTable } from './fences';
import { readJournal } from './journal';
import { overlayRecords } from './journal-records';
import { bucketsOfPage, countOf, dayOf, pageShards, pageShardsOf, pageSlotsOf, prefixesFor, type BucketCounts, type ListPrefix } from './layout';

/** One A1 request as the list index sees it. */
export interface ListRequest {
  /** The key's customer group (first customer of its path): whose fences and index state apply. */
  groupId: string;
  /** Whose list: the key's customer, or the customer the `customer` filter names. */
  customerId: string;
  /** Only the SIMs that customer owns itself (the `customer` filter). */
  direct: boolean;
  status?: string;
  /** `updated_after` in epoch milliseconds: the list in order of update, after this instant. */
  updatedAfter?: number;
  page: number;
  pageSize: number;
}

/** A time bucket as read from its count page: its day and its counts and bounds. */
interface TimeBucket extends BucketCounts {
  day: string;
}

/**
 * What the first read of a list found (one round trip): the buckets with their counts, or
 * that the group is not on the list index yet (A1 then reads its sim_scope items).
 */
export type ListDirectory =
  | { kind: 'legacy' }
  | { kind: 'id'; buckets: BucketCounts[] }
  | { kind: 'time'; buckets: TimeBucket[] };

/** The matching SIM ids of the requested page, in list order, and how many match in all. */
export interface ListIds {
  count: number;
  ids: number[];
}

const isReady = (meta: SimListMetaItem | undefined): boolean => meta?.state === 'ready';

/**
 * Every count page of a list, from its `pageShards` partitions queried at once (one round
 * trip): an index built before the pages were spread has them all in shard 0, the others
 * answer nothing. From `fromSortKey` on when given; strongly consistent when asked.
 */
export const readCountPages = async (
  table: ListTable,
  partitionOf: (shard: number) => string,
  options: { fromSortKey?: string; consistent?: boolean } = {},
): Promise<Record<string, unknown>[]> =>
  (await Promise.all(Array.from({ length: pageShards }, (_, shard) => readPages(table, partitionOf(shard), options)))).flat();

/** Every count page of a partition (usually one Query page: a million SIMs make about 60 KB in all). */
const readPages = async (table: ListTable, partitionKey: string, { fromSortKey, consistent }: { fromSortKey?: string; consistent?: boolean }): Promise<Record<string, unknown>[]> => {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: fromSortKey === undefined ? 'PK = :pk' : 'PK = :pk AND SK >= :from',
    ExpressionAttributeValues: { ':pk': partitionKey, ...(fromSortKey === undefined ? {} : { ':from': fromSortKey }) },
    ...(consistent ? { ConsistentRead: true } : {}),
  })) {
    items.push(...page);
  }
  return items;
};

/**
 * The directory of a list: in one round trip, the group's index state (and its fences) beside
 * the list's count pages (readCountPages) and the customer's count journal, laid over them
 * (journal-records.ts overlayRecords). In id order every count page of the customer is read; in order of
 * update only the days from the one before `updated_after` on (nothing older can match).
 */
export const readListDirectory = async (table: ListTable, request: ListRequest): Promise<ListDirectory> => {
  if (request.updatedAfter === undefined) {
    const [fences, pages, journal] = await Promise.all([
      readGroupFences(table, request.groupId),
      readCountPages(table, (shard) => partition.simListIdCounts(request.customerId, shard)),
      readJournal(table, request.customerId),
    ]);
    if (!isReady(fences?.meta)) return { kind: 'legacy' };
    const current = overlayRecords(request.customerId, pages, journal.filter((record) => record.ordering === 'id'), fences!);
    // The pages come shard by shard (page p in shard p mod 8): the list's order is the buckets'.
    const buckets = current.flatMap((item) => bucketsOfPage(Number(item.SK), item, fences!.slots));
    return { kind: 'id', buckets: buckets.sort((left, right) => left.bucket - right.bucket) };
  }
  const fromDay = dayOf(request.updatedAfter - 86_400_000);
  const [meta, pages, journal] = await Promise.all([
    table.db.send(new GetCommand({ TableName: table.tableName, Key: key.simListMeta(request.groupId) })),
    readCountPages(table, (shard) => partition.simListTimeCounts(request.customerId, shard), { fromSortKey: fromDay }),
    readJournal(table, request.customerId),
  ]);
  if (!isReady(meta.Item as SimListMetaItem | undefined)) return { kind: 'legacy' };
  const layout = { slots: pageSlotsOf(meta.Item as SimListMetaItem), shards: pageShardsOf(meta.Item as SimListMetaItem) };
  const slots = layout.slots;
  const current = overlayRecords(request.customerId, pages, journal.filter((record) => record.ordering === 'time' && record.day! >= fromDay), layout);
  const buckets = current.flatMap((item) => {
    const [day, page] = String(item.SK).split('#') as [string, string];
    return bucketsOfPage(Number(page), item, slots).map((bucket): TimeBucket => ({ ...bucket, day }));
  });
  buckets.sort((left, right) => left.day.localeCompare(right.day) || left.bucket - right.bucket);
  return { kind: 'time', buckets };
};

/**
 * The sort keys of one prefix's entries in one bucket partition, from `fromSortKey` on, at most
 * `limit` of them (a page needs no more of any one prefix than its last position in the bucket,
 * so a Query reads, and costs, no more than that).
 */
const readEntries = async (table: ListTable, partitionKey: string, prefix: ListPrefix, fromSortKey: string, limit?: number): Promise<string[]> => {
  const keys: string[] = [];
  for await (const page of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': partitionKey, ':from': fromSortKey, ':to': `${prefix}#~` },
    ProjectionExpression: 'SK',
    ...(limit === undefined ? {} : { Limit: limit }),
  })) {
    keys.push(...page.map((item) => String(item.SK)));
    if (limit !== undefined && keys.length >= limit) break;
  }
  return limit === undefined ? keys : keys.slice(0, limit);
};

/**
 * The ids of the requested page from the directory (one more round trip, for the buckets the
 * page falls in and, in order of update, the few buckets whose time span holds
 * `updated_after`). Each (bucket, prefix) is one Query of a contiguous key range; at most one
 * per SIM of the page plus one per prefix, however many SIMs the list holds.
 */
export const readListIds = async (table: ListTable, request: ListRequest, directory: Exclude<ListDirectory, { kind: 'legacy' }>): Promise<ListIds> => {
  const prefixes = prefixesFor({ status: request.status, direct: request.direct });
  const start = (request.page - 1) * request.pageSize;
  return directory.kind === 'id'
    ? idPage(table, request, directory.buckets, prefixes, start)
    : timePage(table, request, directory.buckets, prefixes, start);
};

const idPage = async (table: ListTable, request: ListRequest, buckets: BucketCounts[], prefixes: ListPrefix[], start: number): Promise<ListIds> => {
  const counted = buckets.map((bucket) => ({ bucket, count: countOf(bucket, prefixes) })).filter((entry) => entry.count > 0);
  const count = counted.reduce((sum, entry) => sum + entry.count, 0);
  const end = Math.min(start + request.pageSize, count);
  if (start >= end) return { count, ids: [] };
  const wanted: { bucket: BucketCounts; before: number }[] = [];
  let before = 0;
  for (const entry of counted) {
    if (before + entry.count > start && before < end) wanted.push({ bucket: entry.bucket, before });
    before += entry.count;
  }
  const lists = await Promise.all(
    wanted.map(async ({ bucket, before: first }) => {
      const partitionKey = partition.simListIdBucket(request.customerId, bucket.bucket);
      const perPrefix = await Promise.all(
        prefixes
          .filter((prefix) => (bucket.counts.get(prefix) ?? 0) > 0)
          .map((prefix) => readEntries(table, partitionKey, prefix, `${prefix}#`, end - first)),
      );
      return perPrefix.flat().map(simIdOfEntry).sort((left, right) => left - right);
    }),
  );
  // Positions follow the counts; entries written a moment ago and not yet counted shift a page by as much.
  const ids = lists.flatMap((list, index) => {
    const { before: first } = wanted[index]!;
    return list.slice(Math.max(0, start - first), Math.max(0, end - first));
  });
  return { count, ids };
};

const timePage = async (table: ListTable, request: ListRequest, buckets: TimeBucket[], prefixes: ListPrefix[], start: number): Promise<ListIds> => {
  const after = request.updatedAfter!;
  // A bucket whose newest entry is not after the instant has no match; one whose oldest is after it, all its entries.
  const live = buckets
    .map((bucket) => ({ bucket, count: countOf(bucket, prefixes) }))
    .filter((entry) => entry.count > 0 && (entry.bucket.high === undefined || entry.bucket.high > after))
    .map((entry) => ({ ...entry, partial: entry.bucket.low === undefined || entry.bucket.low <= after }));
  const end = start + request.pageSize;
  // Read every partial bucket (its count of matches is not known) and every bucket the page may fall in.
  let fewest = 0;
  let most = 0;
  const read = live.map((entry) => {
    const needed = entry.partial || (most + entry.count > start && fewest < end);
    // A partial bucket is read whole (its matches are counted); a full one up to the page's end at most.
    const limit = entry.partial ? undefined : end - fewest;
    fewest += entry.partial ? 0 : entry.count;
    most += entry.count;
    return { needed, limit };
  });
  const lowest = `${padId(Math.floor(after) + 1)}#`;
  const matches = await Promise.all(
    live.map(async (entry, index) => {
      if (!read[index]!.needed) return undefined;
      const partitionKey = partition.simListTimeBucket(request.customerId, entry.bucket.day, entry.bucket.bucket);
      const perPrefix = await Promise.all(
        prefixes
          .filter((prefix) => (entry.bucket.counts.get(prefix) ?? 0) > 0)
          .map((prefix) => readEntries(table, partitionKey, prefix, `${prefix}#${lowest}`, read[index]!.limit)),
      );
      return perPrefix
        .flat()
        .map((sortKey) => ({ updatedAt: updatedAtOfTimeEntry(sortKey), id: simIdOfEntry(sortKey) }))
        .sort((left, right) => left.updatedAt - right.updatedAt || left.id - right.id)
        .map((match) => match.id);
    }),
  );
  // A partial bucket counts what was read of it (all its matches); any other bucket, its count.
  const sizeOf = (index: number) => (live[index]!.partial ? matches[index]!.length : live[index]!.count);
  const count = live.reduce((sum, _entry, index) => sum + sizeOf(index), 0);
  const ids: number[] = [];
  let before = 0;
  live.forEach((_entry, index) => {
    const size = sizeOf(index);
    if (before + size > start && before < end && matches[index]) {
      ids.push(...matches[index]!.slice(Math.max(0, start - before), Math.max(0, end - before)));
    }
    before += size;
  });
  // Pages follow the order of update; the SIMs of a page are listed by id, as every list is.
  return { count, ids: ids.slice(0, request.pageSize).sort((left, right) => left - right) };
};

/** For the list route: the directory read and the page read of a list, as one call (tests and tools). */
export const readList = async (table: ListTable, request: ListRequest): Promise<ListIds | undefined> => {
  const directory = await readListDirectory(table, request);
  return directory.kind === 'legacy' ? undefined : readListIds(table, request, directory);
};
