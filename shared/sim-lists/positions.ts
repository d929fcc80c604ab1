import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SimItem } from '../db/items';
import { key } from '../db/keys';
import type { ListTable } from './fences';
import { dayOf, formatPosition } from './layout';

/** The listing attributes every SIM write stamps (shared/sims/sim-writes.ts). */
export interface ListingAttributes {
  listed_at_ms: number;
  list_pos: Record<string, string>;
}

/**
 * Hands out a time position in the list of each customer on each SIM's path, for SIMs whose
 * `updated_at` moves, in the order given (order them by update). One conditional counter
 * write per (customer, UTC day of the update) for the whole call, whatever the number of
 * SIMs: a batch of writes shares its counter updates. Positions of one counter are dense, so
 * a bucket of the order of update (layout.ts, timeBucketSize positions) is written at most
 * that many times, ever: no hot partition however fast SIMs change. A position handed out to a
 * write that then does not happen (a lost condition) is simply never used.
 */
export const reservePositions = async (
  table: ListTable,
  sims: readonly Pick<SimItem, 'customer_path' | 'updated_at_ms'>[],
  nowMs: number,
): Promise<ListingAttributes[]> => {
  const wanted = new Map<string, number>();
  const counterOf = (customerId: string, updatedAtMs: number) => `${customerId}\u0000${dayOf(updatedAtMs)}`;
  for (const sim of sims) {
    for (const customerId of sim.customer_path) {
      const counter = counterOf(customerId, sim.updated_at_ms);
      wanted.set(counter, (wanted.get(counter) ?? 0) + 1);
    }
  }
  const firstOf = new Map<string, number>();
  await Promise.all(
    [...wanted].map(async ([counter, amount]) => {
      const [customerId, day] = counter.split('\u0000') as [string, string];
      const updated = await table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: key.simListSequence(customerId, day),
          UpdateExpression: 'SET #type = :type ADD #next :amount',
          ExpressionAttributeNames: { '#type': 'type', '#next': 'next' },
          ExpressionAttributeValues: { ':type': 'sim_list_sequence', ':amount': amount },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      firstOf.set(counter, Number(updated.Attributes?.next) - amount);
    }),
  );
  return sims.map((sim) => {
    const list_pos: Record<string, string> = {};
    for (const customerId of sim.customer_path) {
      const counter = counterOf(customerId, sim.updated_at_ms);
      const sequence = firstOf.get(counter)!;
      firstOf.set(counter, sequence + 1);
      list_pos[customerId] = formatPosition(dayOf(sim.updated_at_ms), sequence);
    }
    return { listed_at_ms: nowMs, list_pos };
  });
};
