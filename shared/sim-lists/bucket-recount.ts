import { queryPages } from '../db/query-pages';
import { simIdOfEntry, updatedAtOfTimeEntry, type CountSlot } from './entries';
import type { ListTable } from './fences';

/** A bucket as counted from its entries. */
export interface Recount {
  slot: CountSlot;
  counts: Map<string, number>;
  total: number;
  low?: number;
  high?: number;
  /** In id order, the SIM ids counted, ascending (where a split cuts the bucket). */
  ids?: number[];
}

/**
 * Counts one bucket's entries per prefix (strongly consistent), with its time bounds. In id
 * order only the entries of the bucket's ids are counted: an entry a writer put there with
 * fences a moment old, above a fence a split has since cut, belongs to the new bucket (the
 * writer moves it there, ./maintain.ts).
 */
export const countBucket = async (table: ListTable, slot: CountSlot): Promise<Recount> => {
  const counts = new Map<string, number>();
  let low: number | undefined;
  let high: number | undefined;
  let total = 0;
  const ids = new Set<number>();
  const inRange = (simId: number) => slot.range === undefined || (simId >= slot.range.from && (slot.range.to === undefined || simId < slot.range.to));
  for await (const items of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': slot.bucketPartition },
    ProjectionExpression: 'SK',
    ConsistentRead: true,
  })) {
    for (const item of items) {
      const sortKey = String(item.SK);
      if (slot.ordering === 'id') {
        const simId = simIdOfEntry(sortKey);
        if (!inRange(simId)) continue;
        ids.add(simId);
      }
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
  return { slot, counts, total, low, high, ...(slot.ordering === 'id' ? { ids: [...ids].sort((left, right) => left - right) } : {}) };
};
