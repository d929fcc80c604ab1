import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '../db/batch-get';
import { isConditionFailure, sendUnlessConditionFails } from '../db/conditions';
import type { SimItem, SimListMetaItem } from '../db/items';
import { key, partition } from '../db/keys';
import { queryPages } from '../db/query-pages';
import { fenceItems, fencesForIds, readListMeta, type ListTable } from './fences';
import { readJournal } from './journal';
import { overlayRecords } from './journal-records';
import { bucketsOfPage, pageShardsOf, pageSlotsOf } from './layout';
import { readCountPages } from './read-list';
import { reservePositions, type ListingAttributes } from './positions';
import { claimMsisdnAlone } from '../msisdn/msisdn-index';
import { sleep } from '../time/sleep';

/** Where a rebuild is, for its progress bar. */
export interface RebuildProgress {
  groupId: string;
  phase: 'reading' | 'marking' | 'settling' | 'ready' | 'cleaning';
  done: number;
  total: number;
}

/** How a rebuild ended. */
export type RebuildOutcome = 'ready' | 'already-ready';

/** SIMs marked per round (one BatchGetItem, then their conditional updates). */
const chunkSize = 100;
/** Margin between the index state's start and the first mark: writes of SIMs before it are not counted by the index. */
const startMarginMs = 5_000;

/** A SIM of a group as its sim_scope item tells it: id and time of update. */
interface ScopedSim {
  id: number;
  updatedAtMs: number;
}

/** Every SIM of a group from its sim_scope items (what an earlier version, and the consumer until `ready`, keep). */
const scopedSims = async (table: ListTable, groupId: string): Promise<ScopedSim[]> => {
  const sims: ScopedSim[] = [];
  for await (const page of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': partition.simScope(groupId) },
    ProjectionExpression: 'sim_id, updated_at_ms',
    ConsistentRead: true,
  })) {
    for (const item of page) sims.push({ id: Number(item.sim_id), updatedAtMs: Number(item.updated_at_ms) });
  }
  return sims;
};

/** The number of SIMs the index counts in a group's own list (every bucket, every prefix, its count journal laid over the pages). */
const indexedCount = async (table: ListTable, groupId: string, meta: SimListMetaItem): Promise<number> => {
  const layout = { slots: pageSlotsOf(meta), shards: pageShardsOf(meta) };
  const pages = await readCountPages(table, (shard) => partition.simListIdCounts(groupId, shard), { consistent: true });
  const journal = (await readJournal(table, groupId)).filter((record) => record.ordering === 'id');
  let total = 0;
  for (const item of overlayRecords(groupId, pages, journal, layout)) {
    for (const bucket of bucketsOfPage(Number(item.SK), item, layout.slots)) for (const count of bucket.counts.values()) total += count;
  }
  return total;
};

const isMarked = (sim: SimItem, meta: SimListMetaItem): boolean => typeof sim.listed_at_ms === 'number' && sim.listed_at_ms >= meta.build_started_ms;

/**
 * Marks SIMs as listed (listed_at_ms now, time positions for their update times, handed out
 * for the whole chunk at once, in order of update), each unless a writer did since the index
 * state began; conditional on the SIM being as read, so a SIM that changes meanwhile is read
 * again and marked alone; the stream consumer counts them. Claims their MSISDNs too (the MSISDN
 * index, which an earlier version did not keep), warning of a number two SIMs share.
 */
const markListed = async (
  table: ListTable,
  sims: readonly SimItem[],
  meta: SimListMetaItem,
  nowMs: number,
  onWarning: (message: string) => void,
): Promise<void> => {
  const unmarked = sims.filter((sim) => !isMarked(sim, meta)).sort((left, right) => left.updated_at_ms - right.updated_at_ms || left.id - right.id);
  if (unmarked.length === 0) return;
  // An earlier version kept no MSISDN index (issue #21): claim each SIM's number now.
  const claimed = await Promise.all(unmarked.map((sim) => claimMsisdnAlone(table, sim)));
  unmarked.forEach((sim, index) => {
    if (!claimed[index]) onWarning(`SIM ${sim.id} (ICCID ${sim.iccid}): msisdn ${String(sim.msisdn)} is held by another SIM; inbound SMS from it go to that SIM`);
  });
  const listings = await reservePositions(table, unmarked, nowMs);
  await Promise.all(unmarked.map((sim, index) => markOne(table, sim, meta, nowMs, listings[index]!)));
};

/** Marks one SIM with `listing`, or, when it changed since it was read, reads it again and marks it with new positions. */
const markOne = async (table: ListTable, sim: SimItem, meta: SimListMetaItem, nowMs: number, first: ListingAttributes): Promise<void> => {
  let listing: ListingAttributes | undefined = first;
  for (let current: SimItem | undefined = sim; current; ) {
    if (isMarked(current, meta)) return;
    listing ??= (await reservePositions(table, [current], nowMs))[0]!;
    try {
      await table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: key.sim(current.id),
          UpdateExpression: 'SET listed_at_ms = :listed, list_pos = :positions',
          ConditionExpression: 'updated_at_ms = :updated AND (attribute_not_exists(listed_at_ms) OR listed_at_ms < :started)',
          ExpressionAttributeValues: {
            ':listed': listing.listed_at_ms,
            ':positions': listing.list_pos,
            ':updated': current.updated_at_ms,
            ':started': meta.build_started_ms,
          },
        }),
      );
      return;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const found: Record<string, unknown> | undefined = (
        await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.sim(current.id), ConsistentRead: true }))
      ).Item;
      current = found?.type === 'sim' ? (found as unknown as SimItem) : undefined;
      listing = undefined;
    }
  }
};

/**
 * Builds the list index of a customer group filled by an earlier version (issue #19, point 4),
 * while the service runs: A1 answers the group from its sim_scope items (correct, slower for
 * large groups) until the index is complete, then from the index.
 * 1. The group's fences are cut from its SIM ids and its index state written as `building`,
 *    counting SIMs written from a moment a few seconds ahead on (every writer stamps that).
 * 2. Every SIM not yet written since is marked listed, in order of update, so its time
 *    positions follow the order of update; the stream consumer counts each one. Its MSISDN is
 *    claimed (issue #21's index). Progress is kept in the table: a second run goes on where
 *    the first stopped.
 * 3. Once the index counts as many SIMs as the group has, the state becomes `ready`.
 * 4. The sim_scope items, which nothing reads any more, are deleted.
 */
export const rebuildListIndex = async (
  table: ListTable,
  groupId: string,
  options: { now?: () => number; onProgress?: (progress: RebuildProgress) => void; onWarning?: (message: string) => void; settleTimeoutMs?: number } = {},
): Promise<RebuildOutcome> => {
  const now = options.now ?? Date.now;
  const warn = options.onWarning ?? (() => undefined);
  const report = (phase: RebuildProgress['phase'], done: number, total: number) => options.onProgress?.({ groupId, phase, done, total });
  let meta = await readListMeta(table, groupId);
  if (meta?.state === 'ready') return 'already-ready';

  report('reading', 0, 0);
  const scoped = await scopedSims(table, groupId);
  if (!meta) {
    const ids = scoped.map((sim) => sim.id).sort((left, right) => left - right);
    const items = fenceItems(groupId, fencesForIds(ids), { maxId: ids.at(-1) ?? 0, state: 'building', buildStartedMs: now() + startMarginMs });
    for (const item of items) {
      await sendUnlessConditionFails(table.db, new PutCommand({ TableName: table.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
    }
    meta = (await readListMeta(table, groupId))!;
  }
  while (now() <= meta.build_started_ms) await sleep(Math.min(1_000, meta.build_started_ms - now() + 1));

  // In order of update, resuming after the last SIM marked by an earlier run.
  const progressKey = key.simListRebuild(groupId);
  const saved = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: progressKey, ConsistentRead: true }))).Item;
  const after = saved ? { updatedAtMs: Number(saved.updated_at_ms), id: Number(saved.sim_id) } : undefined;
  const ordered = scoped
    .sort((left, right) => left.updatedAtMs - right.updatedAtMs || left.id - right.id)
    .filter((sim) => !after || sim.updatedAtMs > after.updatedAtMs || (sim.updatedAtMs === after.updatedAtMs && sim.id > after.id));
  const total = scoped.length;
  let done = total - ordered.length;
  report('marking', done, total);
  for (let start = 0; start < ordered.length; start += chunkSize) {
    const chunk = ordered.slice(start, start + chunkSize);
    const items = (await batchGetItems(table.db, table.tableName, chunk.map((sim) => key.sim(sim.id)), { consistentRead: true })) as unknown as SimItem[];
    await markListed(table, items.filter((item) => item.type === 'sim'), meta, now(), warn);
    const last = chunk.at(-1)!;
    await table.db.send(new PutCommand({ TableName: table.tableName, Item: { ...progressKey, type: 'sim_list_rebuild', sim_id: last.id, updated_at_ms: last.updatedAtMs } }));
    done += chunk.length;
    report('marking', done, total);
  }

  // Settle: every SIM of the group counted by the index (SIMs that moved in or were made meanwhile included).
  const deadline = now() + (options.settleTimeoutMs ?? 15 * 60_000);
  let last = { counted: -1, since: now() };
  for (;;) {
    const expected = await scopedSims(table, groupId);
    const counted = await indexedCount(table, groupId, meta);
    report('settling', counted, expected.length);
    if (counted === expected.length) break;
    if (now() > deadline) throw new Error(`the index of ${groupId} counts ${counted} SIMs, the group has ${expected.length}: is the maintain-sim-lists consumer running?`);
    if (counted !== last.counted) last = { counted, since: now() };
    else if (now() - last.since > 10_000) {
      // The consumer has caught up and some SIMs are still not counted: SIMs that came into the
      // group after the marking read it. Mark whatever is not marked yet.
      for (let start = 0; start < expected.length; start += chunkSize) {
        const items = (await batchGetItems(table.db, table.tableName, expected.slice(start, start + chunkSize).map((sim) => key.sim(sim.id)), { consistentRead: true })) as unknown as SimItem[];
        await markListed(table, items.filter((item) => item.type === 'sim'), meta, now(), warn);
      }
      last = { counted, since: now() };
    }
    await sleep(500);
  }
  await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: key.simListMeta(groupId),
      UpdateExpression: 'SET #state = :ready',
      ConditionExpression: '#state = :building',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':ready': 'ready', ':building': 'building' },
    }),
  );
  report('ready', total, total);
  await deleteScopeItems(table, groupId, (cleaned) => report('cleaning', cleaned, total));
  await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: progressKey }));
  return 'ready';
};

/**
 * Deletes a ready group's sim_scope items (every customer of the group that has any): A1 reads
 * the index now and the consumer no longer keeps them.
 */
const deleteScopeItems = async (table: ListTable, groupId: string, onProgress: (deleted: number) => void): Promise<void> => {
  const customers = new Set<string>([groupId]);
  for await (const page of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': partition.simScope(groupId) },
    ProjectionExpression: 'owner_id',
  })) {
    for (const item of page) customers.add(String(item.owner_id));
  }
  // An owner's path runs through every level between it and the group: read each owner's path once.
  for (const owner of [...customers]) {
    const found = await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.customer(owner) }));
    for (const customerId of (found.Item?.path as string[] | undefined) ?? []) customers.add(customerId);
  }
  let deleted = 0;
  for (const customerId of customers) {
    for await (const page of queryPages(table.db, {
      TableName: table.tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': partition.simScope(customerId) },
      ProjectionExpression: 'PK, SK',
    })) {
      for (let start = 0; start < page.length; start += 25) {
        let pending: Record<string, unknown>[] = page.slice(start, start + 25).map((item) => ({ DeleteRequest: { Key: { PK: item.PK, SK: item.SK } } }));
        while (pending.length > 0) {
          const output = await table.db.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }));
          pending = (output.UnprocessedItems?.[table.tableName] ?? []) as Record<string, unknown>[];
          if (pending.length > 0) await sleep(100);
        }
        deleted += Math.min(25, page.length - start);
        onProgress(deleted);
      }
    }
  }
};
