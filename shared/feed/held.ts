import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { gsi1, gsi1Partition, key, partition } from '../db/keys';
import { queryPages } from '../db/query-pages';
import type { FeedTable } from './customer-records';
import { journalDays, journalShardOf } from './journal';

/**
 * Feed records held for a SIM the service has not seen yet (issue #31, LOCAL-CONTRACT.md
 * "Operator feed": "A record for an ICCID the service has not seen yet is held for 14 days and
 * applied, by the same rules, when the SIM arrives"). A held record is one item under its ICCID
 * (`HELD#<iccid>`, in source-time order), with its line's text as received, listed in the feed
 * journal by day (GSI1 `FEEDHELD#<day>#<shard>`), and gone after 14 days (TTL). When the feed
 * creates the SIM it applies them (./sim-records.ts) and deletes them.
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

/** Keeps a line for a SIM not seen yet (a retried message writes the same item). */
export const holdLine = async (table: FeedTable, held: HeldLine): Promise<void> => {
  const day = held.received_at.slice(0, 10).replaceAll('-', '');
  await table.db.send(
    new PutCommand({
      TableName: table.tableName,
      Item: {
        ...key.feedHeld(held.iccid, held.source_ms, held.batch_id, held.line),
        ...gsi1.feedHeld(day, journalShardOf(held.batch_id), held.received_at, held.batch_id, held.line),
        type: 'feed_held',
        ...held,
        expires_at: Math.floor(Date.parse(held.received_at) / 1000) + journalDays * 86_400,
      },
    }),
  );
};

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

/** Deletes a held line once applied (or refused) when its SIM arrived. */
export const forgetHeldLine = async (table: FeedTable, held: Pick<HeldLine, 'iccid' | 'source_ms' | 'batch_id' | 'line'>): Promise<void> => {
  await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: key.feedHeld(held.iccid, held.source_ms, held.batch_id, held.line) }));
};

/** Whether the service knows a SIM with this ICCID now (its ICCID item, strongly consistent). */
export const iccidIsKnown = async (table: FeedTable, iccid: string): Promise<boolean> =>
  (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.simIdByIccid(iccid), ConsistentRead: true }))).Item?.type === 'sim_iccid';

/** The lines held now, received in the last 14 days, newest first (at most `limit`): the journal's view. */
export const listHeldLines = async (table: FeedTable, nowMs: number, limit = 100): Promise<HeldLine[]> => {
  const found: HeldLine[] = [];
  for (let index = 0; index <= journalDays && found.length < limit; index += 1) {
    const day = new Date(nowMs - index * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '');
    const pages = await Promise.all(
      [0, 1, 2, 3].map((shard) =>
        table.db.send(
          new QueryCommand({
            TableName: table.tableName,
            IndexName: 'GSI1',
            KeyConditionExpression: 'GSI1PK = :pk',
            ExpressionAttributeValues: { ':pk': gsi1Partition.feedHeld(day, shard) },
            ScanIndexForward: false,
            Limit: limit,
          }),
        ),
      ),
    );
    found.push(...pages.flatMap((page) => (page.Items ?? []).map(heldLineOf)));
  }
  return found.sort((left, right) => right.received_at.localeCompare(left.received_at) || left.line - right.line).slice(0, limit);
};
