import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransientFailure } from '../errors/outage';
import { sleep } from '../time/sleep';

/** A primary key of the single table. */
export interface TableKey {
  PK: string;
  SK: string;
}

/** BatchGetItem's maximum number of keys per call. */
export const maxBatchGetKeys = 100;

const maxAttempts = 8;

/** What batchGetItems reads with. */
export interface BatchGetOptions {
  consistentRead?: boolean;
  projection?: string;
  names?: Record<string, string>;
}

/**
 * Reads items by key (strongly consistent when asked), any number of keys: one BatchGetItem
 * call per 100 keys (DynamoDB's limit), the calls in parallel, each retrying only the keys
 * DynamoDB returns as unprocessed (throttling), with backoff. Returns the items found, in no
 * particular order; a missing key is simply absent. A key given twice is read once (DynamoDB
 * refuses a call that names a key twice).
 */
export const batchGetItems = async (db: DynamoDBDocumentClient, tableName: string, keys: readonly TableKey[], options: BatchGetOptions = {}): Promise<Record<string, unknown>[]> => {
  const unique = [...new Map(keys.map((item) => [`${item.PK}\u0000${item.SK}`, item])).values()];
  const calls: TableKey[][] = [];
  for (let start = 0; start < unique.length; start += maxBatchGetKeys) calls.push(unique.slice(start, start + maxBatchGetKeys));
  return (await Promise.all(calls.map((chunk) => batchGetCall(db, tableName, chunk, options)))).flat();
};

/** One BatchGetItem call of at most 100 keys, with its unprocessed keys read again. */
const batchGetCall = async (db: DynamoDBDocumentClient, tableName: string, keys: readonly TableKey[], options: BatchGetOptions): Promise<Record<string, unknown>[]> => {
  if (keys.length === 0) return [];
  const found: Record<string, unknown>[] = [];
  let pending: Record<string, unknown>[] = keys.map(({ PK, SK }) => ({ PK, SK }));
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > maxAttempts) throw new TransientFailure(`${pending.length} keys stayed unprocessed after ${maxAttempts} attempts`);
    if (attempt > 1) await sleep(Math.min(25 * 2 ** (attempt - 2), 1000) * (0.5 + Math.random() / 2));
    const output = await db.send(
      new BatchGetCommand({
        RequestItems: {
          [tableName]: {
            Keys: pending,
            ConsistentRead: options.consistentRead ?? false,
            ...(options.projection ? { ProjectionExpression: options.projection } : {}),
            ...(options.names ? { ExpressionAttributeNames: options.names } : {}),
          },
        },
      }),
    );
    found.push(...((output.Responses?.[tableName] ?? []) as Record<string, unknown>[]));
    pending = (output.UnprocessedKeys?.[tableName]?.Keys ?? []) as Record<string, unknown>[];
  }
  return found;
};
