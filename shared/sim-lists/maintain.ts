import { batchWriteAll } from '../db/batch-write';
import type { SimItem, SimScopeItem } from '../db/items';
import { key } from '../db/keys';
import { entriesOf, type CountSlot, type ListEntry } from './entries';
import { coverId, cutTail, readGroupFences, type GroupFences, type ListTable } from './fences';
import { appendRecounts, type TouchedBucket } from './journal';
import { poolContributionItem, poolContributionOf, recountPools } from './pools';

/** One change of a SIM item, as the table's stream tells it: the item before and after (absent when created or removed). */
export interface SimChangeRecord {
  old?: SimItem;
  new?: SimItem;
}

/** What one call changed: entries written and deleted, buckets recounted (and customers' journals appended to), legacy scope items written. */
export interface MaintainResult {
  entriesPut: number;
  entriesDeleted: number;
  bucketsRecounted: number;
  journalAppends: number;
  scopeItemsWritten: number;
  poolShardsRecounted: number;
}

const groupOf = (sim: SimItem): string => sim.customer_path[0]!;

/**
 * Keeps the list index (and, for groups not yet on it, the sim_scope items) exact for a batch
 * of SIM changes read from the table's stream, in stream order. Every step may run again
 * (a retried batch, a crashed consumer) with the same outcome:
 * 1. entries are put and deleted by key (the set of entries of a SIM image is a function of
 *    the image, the group's fences and its time positions, none of which can change for an
 *    image already seen);
 * 2. every bucket an entry was put into or deleted from is then COUNTED again from its entries
 *    (strongly consistent), and what the count found for the prefixes that changed is appended
 *    to the list customer's count journal under a sequence taken after this batch's own entry
 *    writes ended (./journal.ts), which readers lay over the count pages and a fold writes into
 *    them: a count is never incremented, so a replay cannot count a change twice, and the
 *    newest sequence holds the newest count, so no change is lost either;
 * 3. a group's last id bucket is cut when it holds more than idBucketSize SIMs;
 * 4. each SIM on a bundle keeps one pool contribution entry, and the pool shards touched are
 *    summed again into the group's directory the same way (./pools.ts).
 * A SIM image is listed when its group has a list index whose count started at or before the
 * image's `listed_at_ms` (fresh groups: always; groups of an earlier version: once marked by
 * `rebuild-list-index`). While a group is not `ready`, its sim_scope items are kept too, since
 * A1 still reads them.
 */
export const maintainSimLists = async (table: ListTable, changes: readonly SimChangeRecord[]): Promise<MaintainResult> => {
  const groups = new Map<string, GroupFences | undefined>();
  for (const change of changes) {
    for (const image of [change.old, change.new]) if (image) groups.set(groupOf(image), undefined);
  }
  await Promise.all([...groups.keys()].map(async (groupId) => groups.set(groupId, await readGroupFences(table, groupId, true))));

  // New ids above a group's largest: raise it first, so that their buckets are final.
  const highest = new Map<string, number>();
  for (const change of changes) {
    if (change.new && isListed(change.new, groups)) highest.set(groupOf(change.new), Math.max(highest.get(groupOf(change.new)) ?? 0, change.new.id));
  }
  await Promise.all(
    [...highest].map(async ([groupId, simId]) => groups.set(groupId, await coverId(table, groupId, simId, groups.get(groupId)!))),
  );

  const writes = new Map<string, IndexWrite>();
  const touched = new Map<string, TouchedBucket>();
  const groupOfCustomer = new Map<string, string>();
  const touch = (entry: ListEntry, put: boolean, sim: SimItem) => {
    groupOfCustomer.set(entry.count.customerId, groupOf(sim));
    const id = slotKey(entry.count);
    let bucket = touched.get(id);
    if (!bucket) touched.set(id, (bucket = { slot: entry.count, prefixes: new Set(), put: false }));
    bucket.prefixes.add(entry.prefix);
    bucket.put ||= put;
  };
  const touchedPools = new Map<string, Map<string, { bundleId: string; shard: number }>>();
  for (const change of changes) {
    const before = change.old && isListed(change.old, groups) ? entriesOf(change.old, groups.get(groupOf(change.old))!) : [];
    const after = change.new && isListed(change.new, groups) ? entriesOf(change.new, groups.get(groupOf(change.new))!) : [];
    const afterKeys = new Set(after.map(entryKey));
    const beforeKeys = new Set(before.map(entryKey));
    for (const entry of before.filter((entry) => !afterKeys.has(entryKey(entry)))) {
      writes.set(entryKey(entry), { PK: entry.PK, SK: entry.SK, put: false });
      touch(entry, false, change.old!);
    }
    for (const entry of after.filter((entry) => !beforeKeys.has(entryKey(entry)))) {
      writes.set(entryKey(entry), { PK: entry.PK, SK: entry.SK, put: true });
      touch(entry, true, change.new!);
    }
    for (const write of legacyScopeWrites(change, groups)) writes.set(entryKey(write), write);
    // The SIM's share of its bundle's pool (./pools.ts).
    const oldShare = change.old && isListed(change.old, groups) ? poolContributionOf(change.old) : undefined;
    const newShare = change.new && isListed(change.new, groups) ? poolContributionOf(change.new) : undefined;
    if (oldShare && (!newShare || entryKey(oldShare) !== entryKey(newShare))) writes.set(entryKey(oldShare), { PK: oldShare.PK, SK: oldShare.SK, put: false, pool: true });
    if (newShare && (!oldShare || entryKey(oldShare) !== entryKey(newShare) || oldShare.v !== newShare.v)) {
      writes.set(entryKey(newShare), { PK: newShare.PK, SK: newShare.SK, put: true, item: poolContributionItem(newShare), pool: true });
    }
    for (const share of [oldShare, newShare]) {
      if (!share || (oldShare && newShare && entryKey(oldShare) === entryKey(newShare) && oldShare.v === newShare.v)) continue;
      let shards = touchedPools.get(share.groupId);
      if (!shards) touchedPools.set(share.groupId, (shards = new Map()));
      shards.set(share.PK, { bundleId: share.bundleId, shard: share.shard });
    }
  }
  const all = [...writes.values()];
  await batchWriteAll(
    table.db,
    table.tableName,
    all.map((write) => (write.put ? { put: write.item ?? { PK: write.PK, SK: write.SK } } : { delete: { PK: write.PK, SK: write.SK } })),
  );

  // Each list customer's touched buckets are counted again and appended to its journal (./journal.ts).
  const byCustomer = new Map<string, TouchedBucket[]>();
  for (const bucket of touched.values()) byCustomer.set(bucket.slot.customerId, [...(byCustomer.get(bucket.slot.customerId) ?? []), bucket]);
  const recounted = (
    await Promise.all([...byCustomer].map(([customerId, buckets]) => appendRecounts(table, customerId, buckets, groups.get(groupOfCustomer.get(customerId)!)!)))
  ).flat();
  await Promise.all([...touchedPools].map(([groupId, shards]) => recountPools(table, groupId, [...shards.values()])));

  // A group's last id bucket, once it holds more than a bucket's worth of the group's SIMs, is cut.
  for (const [groupId, fences] of groups) {
    if (!fences) continue;
    const last = recounted.find((bucket) => bucket.slot.ordering === 'id' && bucket.slot.bucketPartition === `SIMLI#${groupId}#${fences.fences.length - 1}`);
    if (last) await cutTail(table, groupId, fences, last.total);
  }
  const entries = all.filter((write) => !write.scope && !write.pool);
  return {
    entriesPut: entries.filter((write) => write.put).length,
    entriesDeleted: entries.filter((write) => !write.put).length,
    bucketsRecounted: recounted.length,
    journalAppends: byCustomer.size,
    scopeItemsWritten: all.filter((write) => write.scope).length,
    poolShardsRecounted: [...touchedPools.values()].reduce((sum, shards) => sum + shards.size, 0),
  };
};

/** A put or delete of an entry (or, for a group not yet on the index, of a sim_scope item). */
interface IndexWrite {
  PK: string;
  SK: string;
  put: boolean;
  /** The whole item to put, for a sim_scope item or a pool contribution (an entry is its key alone). */
  item?: Record<string, unknown>;
  scope?: boolean;
  pool?: boolean;
}

const entryKey = (entry: Pick<ListEntry, 'PK' | 'SK'>): string => `${entry.PK}\u0000${entry.SK}`;
const slotKey = (slot: CountSlot): string => `${slot.bucketPartition}\u0000${slot.page.PK}\u0000${slot.page.SK}\u0000${slot.slot}`;

/** Whether a SIM image is counted by its group's list index. */
const isListed = (sim: SimItem, groups: ReadonlyMap<string, GroupFences | undefined>): boolean => {
  const fences = groups.get(groupOf(sim));
  return fences !== undefined && typeof sim.listed_at_ms === 'number' && sim.listed_at_ms >= fences.meta.build_started_ms;
};

/**
 * The sim_scope items (one per customer on the owner's path, what A1 reads for a group not on
 * the list index) of a change in a group that is not `ready`: put for the new image, deleted
 * for customers no longer on its path.
 */
const legacyScopeWrites = (change: SimChangeRecord, groups: ReadonlyMap<string, GroupFences | undefined>): IndexWrite[] => {
  const legacy = (sim: SimItem | undefined) => sim !== undefined && groups.get(groupOf(sim))?.meta.state !== 'ready';
  const writes: IndexWrite[] = [];
  const kept = new Set(legacy(change.new) ? change.new!.customer_path : []);
  if (legacy(change.old)) {
    for (const customerId of change.old!.customer_path.filter((customerId) => !kept.has(customerId))) {
      writes.push({ ...key.simScope(customerId, change.old!.id), put: false, scope: true });
    }
  }
  if (legacy(change.new)) {
    const sim = change.new!;
    for (const customerId of sim.customer_path) {
      const item: SimScopeItem = {
        ...key.simScope(customerId, sim.id),
        type: 'sim_scope',
        sim_id: sim.id,
        owner_id: sim.customer_id,
        status: sim.status,
        updated_at_ms: sim.updated_at_ms,
      };
      writes.push({ PK: item.PK, SK: item.SK, put: true, item: item as unknown as Record<string, unknown>, scope: true });
    }
  }
  return writes;
};
