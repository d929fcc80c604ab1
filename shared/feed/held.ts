import { batchGetItems } from '../db/batch-get';
import { batchWriteAll } from '../db/batch-write';
import { gsi1, gsi1Partition, key, partition } from '../db/keys';
import { queryPages } from '../db/query-pages';
import type { FeedTable } from './customer-records';
import { journalDays, journalShardOf, journalShards, newestOf } from './journal';

/**
 * Feed records held for a SIM the service has not seen yet (issue #31, LOCAL-CONTRACT.md
 * "Operator feed": "A record for an ICCID the service has not seen yet is held for 14 days and
 * applied, by the same rules, when the SIM arrives"). A held record is one item under its ICCID
 * (`HELD#<iccid>`, in source-time order), with its line's text as received, listed in the feed
 * journal by day (GSI1 `FEEDHELD#<day>#<shard>`), beside a mark of its ICCID (`HELD#<iccid>`,
 * `MARK`) that the feed reads 100 at a time for the SIMs a message creates, and gone after 14
 * days (TTL). When the feed creates the SIM it applies them (./sim-records.ts) and deletes them.
 */

/** A held line: where it came from, and its text. */
export interface HeldLine {
  iccid: string;
  batch_id: string;
  received_at: string;
  line: number;
  source_ms: number;
  /** The line as received (at most 16 KiB: a longer one is refused when read). */
  text: string;
}

/** The item of a held line (with its place in the journal's listing) and its ICCID's mark. */
const heldItems = (held: HeldLine): Record<string, unknown>[] => {
  const day = held.received_at.slice(0, 10).replaceAll('-', '');
  const expires_at = Math.floor(Date.parse(held.received_at) / 1000) + journalDays * 86_400;
  return [
    {
      ...key.feedHeld(held.iccid, held.source_ms, held.batch_id, held.line),
      ...gsi1.feedHeld(day, journalShardOf(held.batch_id), held.received_at, held.batch_id, held.line),
      type: 'feed_held',
      ...held,
      expires_at,
    },
    { ...key.feedHeldMark(held.iccid), type: 'feed_held_mark', iccid: held.iccid, expires_at },
  ];
};

/**
 * Keeps the lines of a message that name SIMs not seen yet, with each ICCID's mark (BatchWriteItem,
 * 25 items a call; a retried message writes the same items).
 */
export const holdLines = async (table: FeedTable, held: readonly HeldLine[]): Promise<void> => {
  const items = new Map<string, Record<string, unknown>>();
  for (const line of held) for (const item of heldItems(line)) items.set(`${String(item.PK)}\u0000${String(item.SK)}`, item);
  await batchWriteAll(table.db, table.tableName, [...items.values()].map((item) => ({ put: item })));
};

/** The ICCIDs among these that have held lines (their marks, BatchGetItem, 100 a call). */
export const iccidsWithHeldLines = async (table: FeedTable, iccids: readonly string[]): Promise<Set<string>> =>
  new Set(
    (await batchGetItems(table.db, table.tableName, iccids.map((iccid) => key.feedHeldMark(iccid)), { consistentRead: true }))
      .filter((item) => item.type === 'feed_held_mark')
      .map((item) => String(item.iccid)),
  );

const heldLineOf = (item: Record<string, unknown>): HeldLine => ({
  iccid: String(item.iccid),
  batch_id: String(item.batch_id),
  received_at: String(item.received_at),
  line: Number(item.line),
  source_ms: Number(item.source_ms),
  text: String(item.text),
});

/**
 * The lines held for an ICCID, oldest source time first (strongly consistent Query, every
 * page); lines past their 14 days that TTL has not removed yet are left out.
 */
export const heldLinesOf = async (table: FeedTable, iccid: string, nowMs: number): Promise<HeldLine[]> => {
  const lines: HeldLine[] = [];
  for await (const items of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': partition.feedHeld(iccid) },
    ConsistentRead: true,
  })) {
    for (const item of items) if (item.type === 'feed_held' && Number(item.expires_at) * 1000 > nowMs) lines.push(heldLineOf(item));
  }
  return lines;
};

/**
 * Deletes the held lines of an ICCID once applied (or refused) when its SIM arrived, and its
 * mark when none is left (a line held meanwhile by another message keeps it: that message looks
 * for the SIM after writing it, and releases it).
 */
export const forgetHeldLines = async (table: FeedTable, iccid: string, lines: readonly Pick<HeldLine, 'source_ms' | 'batch_id' | 'line'>[], keepMark: boolean): Promise<void> => {
  await batchWriteAll(table.db, table.tableName, [
    ...lines.map((held) => ({ delete: key.feedHeld(iccid, held.source_ms, held.batch_id, held.line) })),
    ...(keepMark ? [] : [{ delete: key.feedHeldMark(iccid) }]),
  ]);
};

/** The lines held now, received in the last 14 days, newest first (at most `limit`): the journal's view. */
export const listHeldLines = async (table: FeedTable, nowMs: number, limit = 100): Promise<HeldLine[]> => {
  const found: HeldLine[] = [];
  for (let index = 0; index <= journalDays && found.length < limit; index += 1) {
    const day = new Date(nowMs - index * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
    const shards = await Promise.all(Array.from({ length: journalShards }, (_, shard) => newestOf<Record<string, unknown>>(table, gsi1Partition.feedHeld(day, shard), limit, 'GSI1')));
    found.push(...shards.flat().map(heldLineOf));
  }
  return found.sort((left, right) => right.received_at.localeCompare(left.received_at) || left.line - right.line).slice(0, limit);
};
