import type { SimItem } from '../db/items';
import { key, partition } from '../db/keys';
import { bucketBounds, bucketOfId } from './fences';
import { pageOf, parsePosition, prefixOf, shardOfPage, timeBucketOf, type ListPrefix } from './layout';

/** Where an entry is counted: its count page and the bucket's slot on it. */
export interface CountSlot {
  /** The count page's key. */
  page: { PK: string; SK: string };
  /** The partition of the bucket's entries (what a recount reads). */
  bucketPartition: string;
  slot: number;
  ordering: 'id' | 'time';
  /** Whose list, which bucket of it and, in order of update, which day. */
  customerId: string;
  bucket: number;
  day?: string;
  /** In id order, the bucket's ids (its fence up to the next): what a recount counts of its partition. */
  range?: { from: number; to?: number };
}

/** One entry of a SIM in one list: its key, its prefix and where it is counted. */
export interface ListEntry {
  PK: string;
  SK: string;
  prefix: ListPrefix;
  count: CountSlot;
}

/** The part of a SIM item that decides its list entries. */
export type ListedSim = Pick<SimItem, 'id' | 'status' | 'customer_id' | 'customer_path' | 'updated_at_ms' | 'list_pos'>;

/** What of a group's index places entries: its id fences (and their bucket numbers), the buckets per count page and the count partitions per list. */
export interface GroupLayout {
  fences: readonly number[];
  /** The bucket number of each fence (fences.ts GroupFences); absent: fence `i` is bucket `i` (a bulk build). */
  buckets?: readonly number[];
  /** Buckets per count page (layout.ts pageSlotsOf). */
  slots: number;
  /** Count partitions per list (layout.ts pageShardsOf). */
  shards: number;
}

/**
 * Every list entry of a SIM (pure): for each customer on its owner's path, one entry in the
 * customer's list in id order (bucket from the group's fences) and one in its list in order of
 * update (bucket from the SIM's time position for that customer; none when it has none).
 */
export const entriesOf = (sim: ListedSim, group: GroupLayout): ListEntry[] => {
  const fence = bucketOfId(group.fences, sim.id);
  const idBucket = group.buckets?.[fence] ?? fence;
  return sim.customer_path.flatMap((customerId): ListEntry[] => {
    const prefix = prefixOf(customerId, sim.customer_id, sim.status);
    const idEntry = key.simListIdEntry(customerId, idBucket, prefix, sim.id);
    const entries: ListEntry[] = [{ ...idEntry, prefix, count: idCountSlot(customerId, idBucket, fence, group) }];
    // Customer ids come from outside: a position is an own entry of list_pos, never one of Object.prototype's.
    const position = parsePosition(sim.list_pos && Object.hasOwn(sim.list_pos, customerId) ? sim.list_pos[customerId] : undefined);
    if (position) {
      const bucket = timeBucketOf(position.sequence);
      const timePage = pageOf(bucket, group.slots);
      const timeEntry = key.simListTimeEntry(customerId, position.day, bucket, prefix, sim.updated_at_ms, sim.id);
      entries.push({
        ...timeEntry,
        prefix,
        count: {
          page: key.simListTimeCounts(customerId, position.day, timePage.page, shardOfPage(timePage.page, group.shards)),
          bucketPartition: timeEntry.PK,
          slot: timePage.slot,
          ordering: 'time',
          customerId,
          bucket,
          day: position.day,
        },
      });
    }
    return entries;
  });
};

/** Where the entries of bucket `bucket` (its fence at `position`) of a customer's list in id order are counted. */
export const idCountSlot = (customerId: string, bucket: number, position: number, group: GroupLayout): CountSlot => {
  const { page, slot } = pageOf(bucket, group.slots);
  return {
    page: key.simListIdCounts(customerId, page, shardOfPage(page, group.shards)),
    bucketPartition: partition.simListIdBucket(customerId, bucket),
    slot,
    ordering: 'id',
    customerId,
    bucket,
    range: bucketBounds(group.fences, position),
  };
};

/** The SIM id of an entry's sort key (the last 15 digits). */
export const simIdOfEntry = (sortKey: string): number => Number(sortKey.slice(-15));

/** The update time (epoch ms) of a time entry's sort key. */
export const updatedAtOfTimeEntry = (sortKey: string): number => Number(sortKey.slice(3, 18));
