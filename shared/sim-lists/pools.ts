import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../db/conditions';
import { TransientFailure } from '../errors/outage';
import type { SimItem } from '../db/items';
import { key, partition } from '../db/keys';
import { queryPages } from '../db/query-pages';
import { poolAttribute, poolShardOf } from '../groups/directory';
import { toHundredths } from '../vocabulary/amounts';
import type { ListTable } from './fences';
import { sleep } from '../time/sleep';

/**
 * A data bundle's pool usage (issue #20: the sum of its SIMs' month-to-date usage), kept by the
 * list index consumer beside the lists, the same way: each SIM on a bundle has one contribution
 * entry (`POOLC#<bundle>#<shard>`, its usage in hundredths of a MB), and each shard a change
 * touched is summed again from its entries (strongly consistent) and written to the group's
 * directory with a condition on its pool version. So a usage record rewrites no other SIM of
 * its pool, and concurrent changes of SIMs of one pool never lose an update: the last write of
 * a shard's sum was summed after every earlier one.
 */

/** A SIM's contribution to its bundle's pool. */
export interface PoolContribution {
  PK: string;
  SK: string;
  v: number;
  groupId: string;
  bundleId: string;
  shard: number;
}

/** The contribution of a SIM image (none when it is on no bundle). */
export const poolContributionOf = (sim: SimItem): PoolContribution | undefined => {
  const bundleId = sim.data_bundle?.id;
  if (!bundleId) return undefined;
  const shard = poolShardOf(sim.id);
  return { ...key.poolContribution(bundleId, shard, sim.id), v: Number(toHundredths(sim.data_used_mb)), groupId: sim.customer_path[0]!, bundleId, shard };
};

/** The item of a contribution (its key, type and value). */
export const poolContributionItem = (share: PoolContribution): Record<string, unknown> => ({ PK: share.PK, SK: share.SK, type: 'pool_contribution', v: share.v });

/** Most attempts of a directory's pool recount before the batch fails (and the stream retries it). */
const maxAttempts = 12;

/** The sum of one pool shard's contributions (strongly consistent). */
const sumShard = async (table: ListTable, bundleId: string, shard: number): Promise<number> => {
  let total = 0;
  for await (const items of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': partition.poolShard(bundleId, shard) },
    ProjectionExpression: 'v',
    ConsistentRead: true,
  })) {
    for (const item of items) total += Number(item.v ?? 0);
  }
  return total;
};

/**
 * Sums again the pool shards a batch touched in one group and writes them to the group's
 * directory, conditional on its pool version (starting over when another consumer wrote it in
 * between). Nothing is written for a group without a directory (a group of an earlier version
 * before rebuild-list-index: its SIMs still carry their pool figures).
 */
export const recountPools = async (table: ListTable, groupId: string, shards: readonly { bundleId: string; shard: number }[]): Promise<void> => {
  const directoryKey = key.groupDirectory(groupId);
  for (let attempt = 1; ; attempt += 1) {
    const current = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: directoryKey, ConsistentRead: true }))).Item;
    if (current?.type !== 'group_directory') return;
    const sums = await Promise.all(shards.map((entry) => sumShard(table, entry.bundleId, entry.shard)));
    const names: Record<string, string> = { '#version': 'pool_version' };
    const values: Record<string, unknown> = { ':version': current.pool_version ?? 0, ':one': 1 };
    const sets = shards.map((entry, index) => {
      names[`#p${index}`] = poolAttribute(entry.bundleId, entry.shard);
      values[`:p${index}`] = sums[index];
      return `#p${index} = :p${index}`;
    });
    try {
      await table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: directoryKey,
          UpdateExpression: `SET ${sets.join(', ')}, #version = :version + :one`,
          ConditionExpression: current.pool_version === undefined ? 'attribute_not_exists(#version)' : '#version = :version',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
      return;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Other writers kept winning: contention, which a later attempt does not meet (an outage).
      if (attempt >= maxAttempts) throw new TransientFailure(`the pool usage of group ${groupId} kept changing over ${attempt} attempts`, { cause: error });
      await sleep(Math.min(20 * 2 ** attempt, 1000) * Math.random());
    }
  }
};
