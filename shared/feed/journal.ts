import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '../db/batch-write';
import { key, partition } from '../db/keys';
import { queryPages } from '../db/query-pages';

/**
 * What the operator feed did (issue #20, point 5): per message its counts and per refused line
 * its reason, kept 14 days (TTL), listed newest first by `npm run admin -- feed-rejections` and
 * by the local developer console. A message applied twice (a retry) writes the same items.
 */

/** How long batches and rejections are kept. */
export const journalDays = 14;
/** Partitions per day (a flood of rejections spreads over them). */
export const journalShards = 4;

/** A message's counts. */
export interface FeedBatch {
  batch_id: string;
  received_at: string;
  /** Number of the message's first line in the file it came from (1 for a body posted whole). */
  first_line: number;
  lines: number;
  applied: number;
  unchanged: number;
  stale: number;
  rejected: number;
  /** Lines kept for a SIM the service has not seen yet (./held.ts). */
  held: number;
  /** Lines held by earlier messages that this one's new SIMs released (applied, or refused then). */
  released: number;
}

/** A refused line (of this message, or one an earlier message held and this one released: its own batch and line). */
export interface FeedRejection {
  batch_id: string;
  received_at: string;
  line: number;
  reason: string;
  /** The line's first 300 characters. */
  text: string;
}

const dayOf = (iso: string) => iso.slice(0, 10).replaceAll('-', '');
/** The journal partition of a day a message's items go to. */
export const journalShardOf = (batchId: string): number => [...batchId].reduce((sum, character) => (sum + character.charCodeAt(0)) % journalShards, 0);

/** Writes a message's counts and its refused lines (25 items per call, several calls at once: a message of hostile lines journals hundreds). */
export const recordFeedBatch = async (
  table: { db: DynamoDBDocumentClient; tableName: string },
  batch: FeedBatch,
  rejections: readonly FeedRejection[],
): Promise<void> => {
  const expires_at = Math.floor(Date.parse(batch.received_at) / 1000) + journalDays * 86_400;
  const day = dayOf(batch.received_at);
  const shard = journalShardOf(batch.batch_id);
  const items: Record<string, unknown>[] = [
    { ...key.feedBatch(day, shard, batch.received_at, batch.batch_id), type: 'feed_batch', ...batch, expires_at },
    ...rejections.map((rejection) => ({
      ...key.feedRejection(day, shard, rejection.received_at, rejection.batch_id, rejection.line),
      type: 'feed_rejection',
      ...rejection,
      text: rejection.text.slice(0, 300),
      expires_at,
    })),
  ];
  await batchWriteAll(table.db, table.tableName, items.map((item) => ({ put: item })));
};

/** The last `journalDays` days as yyyymmdd, newest first. */
const recentDays = (nowMs: number): string[] =>
  Array.from({ length: journalDays + 1 }, (_, index) => new Date(nowMs - index * 86_400_000).toISOString().slice(0, 10).replaceAll('-', ''));

/**
 * The newest `limit` items of one partition of the table (or of GSI1, `index`), page after page:
 * a query page stops at 1 MB, and a day of hostile lines journals more than that.
 */
export const newestOf = async <T>(table: { db: DynamoDBDocumentClient; tableName: string }, partitionKey: string, limit: number, index?: 'GSI1'): Promise<T[]> => {
  const items: T[] = [];
  for await (const page of queryPages(table.db, {
    TableName: table.tableName,
    ...(index ? { IndexName: index } : {}),
    KeyConditionExpression: `${index ? 'GSI1PK' : 'PK'} = :pk`,
    ExpressionAttributeValues: { ':pk': partitionKey },
    ScanIndexForward: false,
    Limit: limit,
  })) {
    items.push(...(page as T[]));
    if (items.length >= limit) break;
  }
  return items.slice(0, limit);
};

/** Items of the recent days' partitions (newest first), at most `limit`. */
const recent = async <T>(
  table: { db: DynamoDBDocumentClient; tableName: string },
  partitionOf: (day: string, shard: number) => string,
  nowMs: number,
  limit: number,
): Promise<T[]> => {
  const found: (T & { received_at: string; line?: number; PK?: string; SK?: string; type?: string; expires_at?: number })[] = [];
  for (const day of recentDays(nowMs)) {
    const shards = await Promise.all(Array.from({ length: journalShards }, (_, shard) => newestOf<T & { received_at: string; line?: number }>(table, partitionOf(day, shard), limit)));
    found.push(...shards.flat());
    if (found.length >= limit) break;
  }
  return found
    .sort((left, right) => right.received_at.localeCompare(left.received_at) || (left.line ?? 0) - (right.line ?? 0))
    .slice(0, limit)
    .map(({ PK: _partition, SK: _sort, type: _type, expires_at: _expires, ...fields }) => fields as unknown as T);
};

/** The most recent refused lines (at most `limit`, newest message first, in line order within one). */
export const listFeedRejections = (table: { db: DynamoDBDocumentClient; tableName: string }, nowMs: number, limit = 100): Promise<FeedRejection[]> =>
  recent<FeedRejection>(table, partition.feedRejections, nowMs, limit);

/** The most recent messages (at most `limit`, newest first). */
export const listFeedBatches = (table: { db: DynamoDBDocumentClient; tableName: string }, nowMs: number, limit = 20): Promise<FeedBatch[]> =>
  recent<FeedBatch>(table, partition.feedBatches, nowMs, limit);
