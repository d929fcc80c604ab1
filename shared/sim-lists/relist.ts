import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { SimItem } from '../db/items';
import { key } from '../db/keys';
import { simImageOf } from '../db/stream-images';
import type { ListTable } from './fences';
import { maintainSimLists, type MaintainResult } from './maintain';

/** What relisting one SIM did: the index writes, and whether the SIM is now listed or was found removed. */
export interface RelistResult extends MaintainResult {
  sim: 'listed' | 'removed';
}

/**
 * Repairs the list index for one SIM after maintain-sim-lists set a record of it aside (issue
 * #31): the index still holds the entries of `lastIndexed`, the SIM's image before the first
 * record it could not apply (that record's old image; undefined when the record inserted the
 * SIM), and none of what came after. Applies the one change from that image to the SIM as the
 * table holds it now (read strongly consistent; absent: removed), with the consumer's own
 * maintainSimLists: the old entries deleted, the current ones put, every bucket touched counted
 * again. Like every step of the consumer it may run again with the same outcome. Throws
 * MalformedItem when the SIM item is still malformed: fix it first (or remove it).
 */
export const relistSim = async (table: ListTable, simId: number, lastIndexed: SimItem | undefined): Promise<RelistResult> => {
  const found = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.sim(simId), ConsistentRead: true }))).Item;
  const current = found?.type === 'sim' ? simImageOf(found) : undefined;
  const result = await maintainSimLists(table, [{ old: lastIndexed, new: current }]);
  return { ...result, sim: current ? 'listed' : 'removed' };
};
