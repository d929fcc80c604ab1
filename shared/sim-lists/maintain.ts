import { batchWriteAll } from '../db/batch-write';
import type { SimItem, SimScopeItem } from '../db/items';
import { key } from '../db/keys';
import { fencesVersion, splitOverfull } from './bucket-split';
import { entriesOf, idCountSlot, type CountSlot, type ListEntry } from './entries';
import { coverId, cutTail, readGroupFences, splitAtOf, type GroupFences, type ListTable } from './fences';
import { appendRecounts, type TouchedBucket } from './journal';
import { poolContributionItem, poolContributionOf, recountPools } from './pools';

/** One change of a SIM item, as the table's stream tells it: the item before and after (absent when created or removed). */
export interface SimChangeRecord {
  old?: SimItem;
  new?: SimItem;
}

/** What one call changed: entries written and deleted, buckets recounted (and customers' journals appended to), legacy scope items written, buckets split and entries moved. */
export interface MaintainResult {
  entriesPut: number;
  entriesDeleted: number;
  bucketsRecounted: number;
  journalAppends: number;
  scopeItemsWritten: number;
  poolShardsRecounted: number;
  bucketsSplit: number;
  entriesMoved: number;
}

/** Times a batch writes its entries again because a split changed its group's fences meanwhile, before it fails (and the stream gives it again). */
const maxFenceRounds = 5;

const groupOf = (sim: SimItem): string => sim.customer_path[0]!;

/** The group fences each change was placed with. */
type Layouts = ReadonlyMap<string, GroupFences | undefined>;

/**
 * Keeps the list index (and, for groups not yet on it, the sim_scope items) exact for a batch
 * of SIM changes read from the table's stream, in stream order. Every step may run again
 * (a retried batch, a crashed consumer) with the same outcome:
 * 1. entries are put and deleted by key (the set of entries of a SIM image is a function of
 *    the image, the group's fences and its time positions; fences only change by a split,
 *    and a batch whose group's fences a split changed while it wrote places its SIMs again
 *    with the new ones, deleting what it put by the old: ./bucket-split.ts);
 * 2. every bucket an entry was put into or deleted from is then COUNTED again from its entries
 *    (strongly consistent), and what the count found for the prefixes that changed is appended
 *    to the list customer's count journal under a sequence taken after this batch's own entry
 *    writes ended (./journal.ts), which readers lay over the count pages and a fold writes into
 *    them: a count is never incremented, so a replay cannot count a change twice, and the
 *    newest sequence holds the newest count, so no change is lost either;
 * 3. a group's id bucket that holds more than idBucketSplitAt SIMs (ids that came below the
 *    largest one already bucketed) is split in two at its middle id and the upper half's
 *    entries moved; otherwise its last bucket is cut when it holds more than idBucketSize SIMs;
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

  const plan = planWrites(changes, groups);
  const all = [...plan.writes.values()];
  await batchWriteAll(table.db, table.tableName, all.map(requestOf));
  const written = new Map(plan.writes);
  await placeAgainAfterSplits(table, changes, groups, written, plan);

  // Each list customer's touched buckets are counted again and appended to its journal (./journal.ts).
  const byCustomer = new Map<string, TouchedBucket[]>();
  for (const bucket of plan.touched.values()) {
    const slot = currentSlot(bucket.slot, groups.get(plan.groupOfCustomer.get(bucket.slot.customerId)!)!);
    byCustomer.set(slot.customerId, [...(byCustomer.get(slot.customerId) ?? []), { ...bucket, slot }]);
  }
  const recounted = (
    await Promise.all([...byCustomer].map(([customerId, buckets]) => appendRecounts(table, customerId, buckets, groups.get(plan.groupOfCustomer.get(customerId)!)!)))
  ).flat();
  await Promise.all([...plan.touchedPools].map(([groupId, shards]) => recountPools(table, groupId, [...shards.values()])));

  // A group's buckets grown past their split size are split (and a split's move left half-way finished); else its last bucket, once it holds more than a bucket's worth, is cut.
  let bucketsSplit = 0;
  let entriesMoved = 0;
  for (const [groupId, fences] of groups) {
    if (!fences) continue;
    const own = recounted.filter((bucket) => bucket.slot.ordering === 'id' && bucket.slot.customerId === groupId);
    const over = own.filter((bucket) => bucket.total > splitAtOf(table)).map((bucket) => bucket.slot.bucket);
    if (over.length > 0 || fences.meta.moving) {
      const split = await splitOverfull(table, groupId, over);
      bucketsSplit += split.bucketsSplit;
      entriesMoved += split.entriesMoved;
      continue;
    }
    const last = own.find((bucket) => bucket.slot.bucket === fences.buckets.at(-1));
    if (last) await cutTail(table, groupId, fences, last.total);
  }
  const entries = all.filter((write) => !write.scope && !write.pool);
  return {
    entriesPut: entries.filter((write) => write.put).length,
    entriesDeleted: entries.filter((write) => !write.put).length,
    bucketsRecounted: recounted.length,
    journalAppends: byCustomer.size,
    scopeItemsWritten: all.filter((write) => write.scope).length,
    poolShardsRecounted: [...plan.touchedPools.values()].reduce((sum, shards) => sum + shards.size, 0),
    bucketsSplit,
    entriesMoved,
  };
};

/** What a batch writes: entries, scope items and pool contributions by key (the last change of a key wins), and what it touched. */
interface WritePlan {
  writes: Map<string, IndexWrite>;
  touched: Map<string, TouchedBucket>;
  groupOfCustomer: Map<string, string>;
  touchedPools: Map<string, Map<string, { bundleId: string; shard: number }>>;
}

/** The entries of an image as `layouts` place them (none when its group does not list it). */
const entriesIn = (sim: SimItem | undefined, layouts: Layouts): ListEntry[] =>
  sim && isListed(sim, layouts) ? entriesOf(sim, layouts.get(groupOf(sim))!) : [];

/** Marks a bucket as touched by an entry written to or deleted from it. */
const touch = (plan: Pick<WritePlan, 'touched' | 'groupOfCustomer'>, entry: ListEntry, put: boolean, sim: SimItem) => {
  plan.groupOfCustomer.set(entry.count.customerId, groupOf(sim));
  const id = slotKey(entry.count);
  let bucket = plan.touched.get(id);
  if (!bucket) plan.touched.set(id, (bucket = { slot: entry.count, prefixes: new Set(), put: false }));
  bucket.prefixes.add(entry.prefix);
  bucket.put ||= put;
};

/** The writes of a batch of changes with each group's fences as `groups` holds them. */
const planWrites = (changes: readonly SimChangeRecord[], groups: Layouts): WritePlan => {
  const plan: WritePlan = { writes: new Map(), touched: new Map(), groupOfCustomer: new Map(), touchedPools: new Map() };
  const { writes } = plan;
  for (const change of changes) {
    const before = entriesIn(change.old, groups);
    const after = entriesIn(change.new, groups);
    const afterKeys = new Set(after.map(entryKey));
    const beforeKeys = new Set(before.map(entryKey));
    for (const entry of before.filter((entry) => !afterKeys.has(entryKey(entry)))) {
      writes.set(entryKey(entry), { PK: entry.PK, SK: entry.SK, put: false });
      touch(plan, entry, false, change.old!);
    }
    for (const entry of after.filter((entry) => !beforeKeys.has(entryKey(entry)))) {
      writes.set(entryKey(entry), { PK: entry.PK, SK: entry.SK, put: true });
      touch(plan, entry, true, change.new!);
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
      let shards = plan.touchedPools.get(share.groupId);
      if (!shards) plan.touchedPools.set(share.groupId, (shards = new Map()));
      shards.set(share.PK, { bundleId: share.bundleId, shard: share.shard });
    }
  }
  return plan;
};

/**
 * After a batch's entries are written: when a split changed a group's fences meanwhile (its
 * META's version moved), the batch's SIMs of that group are placed again with the new fences.
 * Each SIM's entries become those of its last image as the new fences place them, and every
 * other entry this batch put or would have deleted, by the old fences or the new, is deleted:
 * whatever the split's move did before or after, no entry is left behind in the old bucket and
 * none of an earlier image in the new one. Only what differs from what was written is written.
 * `groups`, `written` and the plan's touched buckets are brought up to date; repeated until the fences hold still.
 */
const placeAgainAfterSplits = async (
  table: ListTable,
  changes: readonly SimChangeRecord[],
  groups: Map<string, GroupFences | undefined>,
  written: Map<string, IndexWrite>,
  plan: Pick<WritePlan, 'touched' | 'groupOfCustomer'>,
): Promise<void> => {
  const listedGroups = [...groups].filter(([, fences]) => fences !== undefined).map(([groupId]) => groupId);
  for (let round = 1; ; round += 1) {
    const versions = await Promise.all(listedGroups.map((groupId) => fencesVersion(table, groupId)));
    const moved = listedGroups.filter((groupId, index) => versions[index] !== groups.get(groupId)!.meta.version);
    if (moved.length === 0) return;
    if (round > maxFenceRounds) throw new Error(`the fences of ${moved.join(', ')} kept changing while a batch was placed`);
    const before = new Map(groups);
    await Promise.all(moved.map(async (groupId) => groups.set(groupId, await readGroupFences(table, groupId, true))));
    const again: Map<string, IndexWrite> = new Map();
    for (const change of changes) {
      const image = change.new ?? change.old;
      if (!image || !moved.includes(groupOf(image))) continue;
      const after = entriesIn(change.new, groups);
      const afterKeys = new Set(after.map(entryKey));
      const earlier = [...entriesIn(change.old, groups), ...entriesIn(change.old, before), ...entriesIn(change.new, before)];
      const earlierAfter = new Set(entriesIn(change.new, before).map(entryKey));
      for (const entry of earlier.filter((entry) => !afterKeys.has(entryKey(entry)))) {
        again.set(entryKey(entry), { PK: entry.PK, SK: entry.SK, put: false });
        touch(plan, entry, false, (change.old ?? change.new)!);
      }
      for (const entry of after.filter((entry) => !earlierAfter.has(entryKey(entry)))) {
        again.set(entryKey(entry), { PK: entry.PK, SK: entry.SK, put: true });
        touch(plan, entry, true, change.new!);
      }
    }
    const needed = [...again].filter(([entry, write]) => written.get(entry)?.put !== write.put);
    await batchWriteAll(table.db, table.tableName, needed.map(([, write]) => requestOf(write)));
    for (const [entry, write] of needed) written.set(entry, write);
  }
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

const requestOf = (write: IndexWrite) => (write.put ? { put: write.item ?? { PK: write.PK, SK: write.SK } } : { delete: { PK: write.PK, SK: write.SK } });

const entryKey = (entry: Pick<ListEntry, 'PK' | 'SK'>): string => `${entry.PK}\u0000${entry.SK}`;
/** A touched bucket's identity: its list, order, day and number (where its range lies depends on the fences, its number does not). */
const slotKey = (slot: CountSlot): string => `${slot.bucketPartition}\u0000${slot.page.PK}\u0000${slot.page.SK}\u0000${slot.slot}`;

/** A count slot with an id bucket's range as the group's current fences have it. */
const currentSlot = (slot: CountSlot, fences: GroupFences): CountSlot => {
  if (slot.ordering !== 'id') return slot;
  const position = fences.positions.get(slot.bucket);
  return position === undefined ? slot : idCountSlot(slot.customerId, slot.bucket, position, fences);
};

/** Whether a SIM image is counted by its group's list index. */
const isListed = (sim: SimItem, groups: Layouts): boolean => {
  const fences = groups.get(groupOf(sim));
  return fences !== undefined && typeof sim.listed_at_ms === 'number' && sim.listed_at_ms >= fences.meta.build_started_ms;
};

/**
 * The sim_scope items (one per customer on the owner's path, what A1 reads for a group not on
 * the list index) of a change in a group that is not `ready`: put for the new image, deleted
 * for customers no longer on its path.
 */
const legacyScopeWrites = (change: SimChangeRecord, groups: Layouts): IndexWrite[] => {
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
