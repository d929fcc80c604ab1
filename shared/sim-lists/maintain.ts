import { BatchWriteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../db/conditions';
import type { SimItem, SimScopeItem } from '../db/items';
import { key } from '../db/keys';
import { queryPages } from '../db/query-pages';
import { entriesOf, updatedAtOfTimeEntry, type CountSlot, type ListEntry } from './entries';
import { coverId, cutTail, readGroupFences, type GroupFences, type ListTable } from './fences';
import { countAttribute, highAttribute, lowAttribute } from './layout';
import { poolContributionItem, poolContributionOf, recountPools } from './pools';
import { sleep } from '../time/sleep';

/** One change of a SIM item, as the table's stream tells it: the item before and after (absent when created or removed). */
export interface SimChangeRecord {
  old?: SimItem;
  new?: SimItem;
}

/** What one call changed: entries written and deleted, count pages recounted, legacy scope items written. */
export interface MaintainResult {
  entriesPut: number;
  entriesDeleted: number;
  pagesRecounted: number;
  scopeItemsWritten: number;
  poolShardsRecounted: number;
}

/** Most attempts of a count page's recount before the batch fails (and the stream retries it). */
const maxRecountAttempts = 12;
/** BatchWriteItem calls in flight at once. */
const parallelWrites = 8;

const groupOf = (sim: SimItem): string => sim.customer_path[0]!;

/**
 * Keeps the list index (and, for groups not yet on it, the sim_scope items) exact for a batch
 * of SIM changes read from the table's stream, in stream order. Every step may run again
 * (a retried batch, a crashed consumer) with the same outcome:
 * 1. entries are put and deleted by key (the set of entries of a SIM image is a function of
 *    the image, the group's fences and its time positions, none of which can change for an
 *    image already seen);
 * 2. every bucket an entry was put into or deleted from is then COUNTED again from its entries
 *    (strongly consistent), and its count page written with a version condition, retried when
 *    another consumer wrote the page in between: a count is never incremented, so a replay
 *    cannot count a change twice, and a recount always starts after this batch's own entry
 *    writes ended, so no change is lost either;
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
  const touched = new Map<string, CountSlot>();
  const touchedPools = new Map<string, Map<string, { bundleId: string; shard: number }>>();
  for (const change of changes) {
    const before = change.old && isListed(change.old, groups) ? entriesOf(change.old, groups.get(groupOf(change.old))!) : [];
    const after = change.new && isListed(change.new, groups) ? entriesOf(change.new, groups.get(groupOf(change.new))!) : [];
    const afterKeys = new Set(after.map(entryKey));
    const beforeKeys = new Set(before.map(entryKey));
    for (const entry of before.filter((entry) => !afterKeys.has(entryKey(entry)))) {
      writes.set(entryKey(entry), { PK: entry.PK, SK: entry.SK, put: false });
      touched.set(slotKey(entry.count), entry.count);
    }
    for (const entry of after.filter((entry) => !beforeKeys.has(entryKey(entry)))) {
      writes.set(entryKey(entry), { PK: entry.PK, SK: entry.SK, put: true });
      touched.set(slotKey(entry.count), entry.count);
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
  await writeAll(table, all);

  const byPage = new Map<string, CountSlot[]>();
  for (const slot of touched.values()) {
    const pageKey = `${slot.page.PK}\u0000${slot.page.SK}`;
    byPage.set(pageKey, [...(byPage.get(pageKey) ?? []), slot]);
  }
  const recounted = await Promise.all([...byPage.values()].map((slots) => recountPage(table, slots)));
  await Promise.all([...touchedPools].map(([groupId, shards]) => recountPools(table, groupId, [...shards.values()])));

  // A group's last id bucket, once it holds more than a bucket's worth of the group's SIMs, is cut.
  for (const [groupId, fences] of groups) {
    if (!fences) continue;
    const lastBucket = fences.fences.length - 1;
    for (const counts of recounted) {
      const last = counts.find((bucket) => bucket.slot.ordering === 'id' && bucket.slot.bucketPartition === `SIMLI#${groupId}#${lastBucket}`);
      if (last) await cutTail(table, groupId, fences, last.total);
    }
  }
  const entries = all.filter((write) => !write.scope && !write.pool);
  return {
    entriesPut: entries.filter((write) => write.put).length,
    entriesDeleted: entries.filter((write) => !write.put).length,
    pagesRecounted: recounted.length,
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

/** Puts and deletes, 25 per BatchWriteItem, a few calls at once, retrying what DynamoDB leaves unprocessed. */
const writeAll = async (table: ListTable, writes: readonly IndexWrite[]): Promise<void> => {
  const batches: (typeof writes)[] = [];
  for (let start = 0; start < writes.length; start += 25) batches.push(writes.slice(start, start + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let pending: Record<string, unknown>[] = batches[next++]!.map((write) =>
        write.put ? { PutRequest: { Item: write.item ?? { PK: write.PK, SK: write.SK } } } : { DeleteRequest: { Key: { PK: write.PK, SK: write.SK } } },
      );
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        if (attempt > 10) throw new Error(`${pending.length} list index writes stayed unprocessed`);
        if (attempt > 1) await sleep(Math.min(50 * 2 ** (attempt - 2), 2000) * (0.5 + Math.random() / 2));
        const output = await table.db.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }));
        pending = (output.UnprocessedItems?.[table.tableName] ?? []) as Record<string, unknown>[];
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelWrites, batches.length) }, worker));
};

/** A bucket as counted from its entries. */
interface Recount {
  slot: CountSlot;
  counts: Map<string, number>;
  total: number;
  low?: number;
  high?: number;
}

/** Counts one bucket's entries per prefix (strongly consistent), with its time bounds. */
const countBucket = async (table: ListTable, slot: CountSlot): Promise<Recount> => {
  const counts = new Map<string, number>();
  let low: number | undefined;
  let high: number | undefined;
  let total = 0;
  for await (const items of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': slot.bucketPartition },
    ProjectionExpression: 'SK',
    ConsistentRead: true,
  })) {
    for (const item of items) {
      const sortKey = String(item.SK);
      const prefix = sortKey.slice(0, 2);
      counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
      total += 1;
      if (slot.ordering === 'time') {
        const updatedAt = updatedAtOfTimeEntry(sortKey);
        low = low === undefined ? updatedAt : Math.min(low, updatedAt);
        high = high === undefined ? updatedAt : Math.max(high, updatedAt);
      }
    }
  }
  return { slot, counts, total, low, high };
};

/**
 * Counts again the buckets of one count page that this batch touched and writes their counts
 * (and time bounds) with a condition on the page's version, starting over when another
 * consumer wrote the page in between. Prefixes a bucket no longer has are removed, so a page
 * holds only what is there.
 */
const recountPage = async (table: ListTable, slots: readonly CountSlot[]): Promise<Recount[]> => {
  const page = slots[0]!.page;
  for (let attempt = 1; ; attempt += 1) {
    const current = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: page, ConsistentRead: true }))).Item;
    const recounts = await Promise.all(slots.map((slot) => countBucket(table, slot)));
    const set: string[] = [];
    const remove: string[] = [];
    const names: Record<string, string> = { '#type': 'type', '#ver': 'ver' };
    const values: Record<string, unknown> = { ':type': 'sim_list_counts', ':one': 1 };
    const setValue = (name: string, value: number) => {
      const placeholder = `${set.length}`;
      names[`#s${placeholder}`] = name;
      values[`:s${placeholder}`] = value;
      set.push(`#s${placeholder} = :s${placeholder}`);
    };
    const removeName = (name: string) => {
      names[`#r${remove.length}`] = name;
      remove.push(`#r${remove.length}`);
    };
    for (const recount of recounts) {
      const { slot } = recount.slot;
      const counted = new RegExp(`^c${slot}[DI][a-z]$`);
      for (const name of Object.keys(current ?? {}).filter((name) => counted.test(name))) {
        if (!recount.counts.has(name.slice(-2))) removeName(name);
      }
      for (const [prefix, count] of recount.counts) setValue(countAttribute(slot, prefix), count);
      if (recount.slot.ordering === 'time') {
        for (const [name, value] of [
          [lowAttribute(slot), recount.low],
          [highAttribute(slot), recount.high],
        ] as const) {
          if (value !== undefined) setValue(name, value);
          else if (current && name in current) removeName(name);
        }
      }
    }
    const version = current?.ver as number | undefined;
    set.push('#type = :type', version === undefined ? '#ver = :one' : '#ver = #ver + :one');
    if (version !== undefined) values[':ver'] = version;
    try {
      await table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: page,
          UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
          ConditionExpression: version === undefined ? 'attribute_not_exists(PK)' : '#ver = :ver',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return recounts;
    } catch (error) {
      if (!isConditionFailure(error) || attempt >= maxRecountAttempts) throw error;
      await sleep(Math.min(20 * 2 ** attempt, 1000) * Math.random());
    }
  }
};
