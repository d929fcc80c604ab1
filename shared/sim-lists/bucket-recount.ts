import { queryPages } from '../db/query-pages';
import { updatedAtOfTimeEntry, type CountSlot } from './entries';
import type { ListTable } from './fences';

/** A bucket as counted from its entries. */
export interface Recount {
  slot: CountSlot;
  counts: Map<string, number>;
  total: number;
  low?: number;
  high?: number;
}

/** Counts one bucket's entries per prefix (strongly consistent), with its time bounds. */
export const countBucket = async (table: ListTable, slot: CountSlot): Promise<Recount> => {
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
