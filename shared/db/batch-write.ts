import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { TransientFailure } from '../errors/outage';
import { sleep } from '../time/sleep';

/** One request of a BatchWriteItem: a whole item to put, or the key of one to delete. */
export type BatchWriteRequest = { put: Record<string, unknown> } | { delete: { PK: string; SK: string } };

/** BatchWriteItem calls in flight at once. */
const parallelWrites = 8;
/** Calls of one batch before its unprocessed requests fail the whole write. */
const maxAttempts = 10;

/**
 * Puts and deletes, 25 per BatchWriteItem, a few calls at once, retrying with backoff what
 * DynamoDB leaves unprocessed (throttling). Every request is idempotent, so a failed call can
 * simply be made again by the caller.
 */
export const batchWriteAll = async (db: DynamoDBDocumentClient, tableName: string, requests: readonly BatchWriteRequest[]): Promise<void> => {
  const batches: (typeof requests)[] = [];
  for (let start = 0; start < requests.length; start += 25) batches.push(requests.slice(start, start + 25));
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      let pending: Record<string, unknown>[] = batches[next++]!.map((request) =>
        'put' in request ? { PutRequest: { Item: request.put } } : { DeleteRequest: { Key: request.delete } },
      );
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        if (attempt > maxAttempts) throw new TransientFailure(`${pending.length} batched writes stayed unprocessed`);
        if (attempt > 1) await sleep(Math.min(50 * 2 ** (attempt - 2), 2000) * (0.5 + Math.random() / 2));
        const output = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (output.UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelWrites, batches.length) }, worker));
};
