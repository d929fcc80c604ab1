import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sleep } from '../time/sleep';

/** A primary key of the single table. */
export interface TableKey {
  PK: string;
  SK: string;
}

/** BatchGetItem's maximum number of keys per call. */
export const maxBatchGetKeys = 100;

const maxAttempts = 8;

/**
 * Reads up to 100 items by key in one BatchGetItem call (strongly consistent when asked),
 * retrying only the keys DynamoDB returns as unprocessed (throttling), with backoff. Returns
 * the items found, in no particular order; a missing key is simply absent.
 */
export const batchGetItems = async (
  db: DynamoDBDocumentClient,
  tableName: string,
  keys: TableKey[],
  options: { consistentRead?: boolean; projection?: string; names?: Record<string, string> } = {},
): Promise<Record<string, unknown>[]> => {
  if (keys.length === 0) return [];
  if (keys.length > maxBatchGetKeys) throw new Error(`batchGetItems takes at most ${maxBatchGetKeys} keys`);
  const found: Record<string, unknown>[] = [];
  let pending: Record<string, unknown>[] = keys.map(({ PK, SK }) => ({ PK, SK }));
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > maxAttempts) throw new Error(`${pending.length} keys stayed unprocessed after ${maxAttempts} attempts`);
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
