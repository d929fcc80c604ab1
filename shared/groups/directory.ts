import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../db/conditions';
import type { GroupDirectoryItem } from '../db/items';
import { key } from '../db/keys';

/**
 * A customer group's directory (issue #20): the names of its customers, its data bundles'
 * figures and each bundle's pool usage, in one item that A1, A2 and the lifecycle events read
 * beside the SIMs. A SIM item keeps its owner's name and its bundle's figures as they were
 * when it was written; the directory says what they are now, so that a customer renamed or a
 * bundle repriced by the operator feed, or a pool's usage moved by one SIM, never rewrites the
 * other SIMs. Pool usage is kept per shard (`pool#<bundle>#<shard>`, hundredths of a MB) by
 * the stream consumer (shared/sim-lists/pools.ts), and summed when read.
 */

/** A bundle's figures as a group's directory holds them. */
export interface DirectoryBundle {
  customer: string;
  allowance_mb: string;
  monthly_cost: string;
  per_sim_access_fee: string;
}

/**
 * What a reader needs of a group's directory. Customers and bundles are Maps by id: an id comes
 * from outside (a feed line, a seed), and a lookup of `constructor` in a plain object would find
 * the object's own constructor.
 */
export interface GroupDirectory {
  customers: Map<string, { name: string }>;
  bundles: Map<string, DirectoryBundle>;
  /** Pool usage per bundle in hundredths of a MB (the shards summed). */
  poolUsed: Map<string, bigint>;
}

/** Pool shards per bundle: a usage run's recounts and writes are spread over this many. */
export const poolShards = 16;

/** The pool shard of a SIM. */
export const poolShardOf = (simId: number): number => simId % poolShards;

/** The directory attribute of one pool shard's sum. */
export const poolAttribute = (bundleId: string, shard: number): string => `pool#${bundleId}#${shard}`;

/** A directory item as readers see it: the pool shards summed per bundle. */
export const directoryOf = (item: Record<string, unknown> | undefined): GroupDirectory | undefined => {
  if (item?.type !== 'group_directory') return undefined;
  const directory = item as unknown as GroupDirectoryItem;
  const poolUsed = new Map<string, bigint>();
  for (const [name, value] of Object.entries(item)) {
    const match = /^pool#(.+)#\d+$/.exec(name);
    if (match && typeof value === 'number') poolUsed.set(match[1]!, (poolUsed.get(match[1]!) ?? 0n) + BigInt(value));
  }
  return { customers: new Map(Object.entries(directory.customers ?? {})), bundles: new Map(Object.entries(directory.bundles ?? {})), poolUsed };
};

/** A group's directory (one GetItem, eventually consistent unless asked); undefined for a group without one. */
export const readGroupDirectory = async (
  table: { db: DynamoDBDocumentClient; tableName: string },
  groupId: string,
  consistent = false,
): Promise<GroupDirectory | undefined> =>
  directoryOf((await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.groupDirectory(groupId), ConsistentRead: consistent }))).Item);

/**
 * The directory items of a seed (or any set of customers, bundles and SIM usage written in
 * bulk): per group its customers' names, its bundles' figures and each bundle's pool shards.
 */
export const directoryItems = (input: {
  customers: { id: string; name: string; path: string[] }[];
  bundles: { id: string; customer: string; allowance_mb: string; monthly_cost: string; per_sim_access_fee: string }[];
  /** Each SIM on a bundle, with its usage in hundredths. */
  poolUsage: { simId: number; bundleId: string; hundredths: bigint }[];
}): GroupDirectoryItem[] => {
  const groupOf = new Map(input.customers.map((customer) => [customer.id, customer.path[0]!]));
  const items = new Map<string, GroupDirectoryItem>();
  const itemOf = (groupId: string): GroupDirectoryItem => {
    let item = items.get(groupId);
    if (!item) items.set(groupId, (item = { ...key.groupDirectory(groupId), type: 'group_directory', group_id: groupId, customers: {}, bundles: {}, version: 0, pool_version: 0 }));
    return item;
  };
  for (const customer of input.customers) itemOf(groupOf.get(customer.id)!).customers[customer.id] = { name: customer.name };
  const bundleGroup = new Map<string, string>();
  for (const bundle of input.bundles) {
    const groupId = groupOf.get(bundle.customer)!;
    bundleGroup.set(bundle.id, groupId);
    const { id, ...figures } = bundle;
    itemOf(groupId).bundles[id] = figures;
    for (let shard = 0; shard < poolShards; shard += 1) (itemOf(groupId) as unknown as Record<string, unknown>)[poolAttribute(id, shard)] = 0;
  }
  for (const usage of input.poolUsage) {
    const item = itemOf(bundleGroup.get(usage.bundleId)!) as unknown as Record<string, number>;
    const name = poolAttribute(usage.bundleId, poolShardOf(usage.simId));
    item[name] = (item[name] ?? 0) + Number(usage.hundredths);
  }
  return [...items.values()];
};

/**
 * Writes a directory item made for a group (directoryItems) into a table in use: a new group's
 * as it is; an existing group's gains the item's customers and bundles (names and figures as
 * given; a bundle new to it gets empty pool shards, which the stream consumer then sums).
 */
export const mergeDirectory = async (table: { db: DynamoDBDocumentClient; tableName: string }, item: GroupDirectoryItem): Promise<void> => {
  try {
    await table.db.send(new PutCommand({ TableName: table.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
    return;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  // Each map's name only when it is set: DynamoDB refuses an expression attribute name it does not use.
  Object.entries(item.customers).forEach(([id, entry], index) => {
    names['#customers'] = 'customers';
    names[`#c${index}`] = id;
    values[`:c${index}`] = entry;
    sets.push(`#customers.#c${index} = :c${index}`);
  });
  Object.entries(item.bundles).forEach(([id, entry], index) => {
    names['#bundles'] = 'bundles';
    names[`#b${index}`] = id;
    values[`:b${index}`] = entry;
    sets.push(`#bundles.#b${index} = :b${index}`);
    for (let shard = 0; shard < poolShards; shard += 1) {
      names[`#p${index}_${shard}`] = poolAttribute(id, shard);
      sets.push(`#p${index}_${shard} = if_not_exists(#p${index}_${shard}, :zero)`);
    }
    values[':zero'] = 0;
  });
  if (sets.length === 0) return;
  await table.db.send(
    new UpdateCommand({ TableName: table.tableName, Key: key.groupDirectory(item.group_id), UpdateExpression: `SET ${sets.join(', ')}`, ExpressionAttributeNames: names, ExpressionAttributeValues: values }),
  );
};
