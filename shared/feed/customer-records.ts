import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../db/conditions';
import type { CustomerItem, DataBundleItem } from '../db/items';
import { gsi1, key } from '../db/keys';
import { mergeDirectory, poolAttribute, poolShards, readGroupDirectory } from '../groups/directory';
import { fenceItems } from '../sim-lists/fences';
import { normaliseDecimal } from '../vocabulary/decimal';
import type { FeedRecordOf } from './records';

/**
 * The operator feed's `customer` and `data_bundle` records (issue #20): create or update, last
 * writer wins by `source_time` (every record carries all of the entity's fields, so a per-record
 * time is a per-field one). A customer keeps its parent: a record that would move it is
 * refused. A name is unique within its customer group. A new top-level customer is a new group:
 * its list index and directory are made first. Each entity's item and its entry in the group's
 * directory (shared/groups/directory.ts) are written with the same time condition, so a retried
 * record writes what the first try did not.
 */

/** The table the feed writes. */
export interface FeedTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** How a record ended: applied, unchanged (same values, time moved), stale (older), or refused with a reason. */
export type EntityOutcome = { outcome: 'applied' | 'unchanged' | 'stale' } | { outcome: 'rejected'; reason: string };

const readCustomer = async (table: FeedTable, customerId: string): Promise<(CustomerItem & { source_ms?: number }) | undefined> => {
  const found = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.customer(customerId), ConsistentRead: true }))).Item;
  return found?.type === 'customer' ? (found as CustomerItem & { source_ms?: number }) : undefined;
};

/** Applies a `customer` record. */
export const applyCustomerRecord = async (table: FeedTable, record: FeedRecordOf<'customer'>): Promise<EntityOutcome> => {
  const existing = await readCustomer(table, record.id);
  const parent = record.parent ?? null;
  if (existing && existing.parent !== parent) {
    return { outcome: 'rejected', reason: `customer ${record.id} may not move to another parent (its parent is ${existing.parent ?? 'none: it is a customer group'})` };
  }
  if (existing && existing.source_ms !== undefined && existing.source_ms >= record.sourceMs) return { outcome: 'stale' };
  const parentItem = parent === null ? undefined : await readCustomer(table, parent);
  if (parent !== null && !parentItem) return { outcome: 'rejected', reason: `parent customer ${parent} does not exist` };
  const path = existing?.path ?? (parentItem ? [...parentItem.path, record.id] : [record.id]);
  const groupId = path[0]!;
  const directory = await readGroupDirectory(table, groupId, true);
  const holder = [...(directory?.customers ?? [])].find(([id, entry]) => id !== record.id && entry.name === record.name);
  if (holder) return { outcome: 'rejected', reason: `name ${JSON.stringify(record.name)} is already the name of customer ${holder[0]} of group ${groupId}` };

  if (parent === null && !existing) {
    // A new group: its empty list index and its directory before the customer itself.
    for (const item of fenceItems(groupId, [0], { maxId: 0, state: 'ready', buildStartedMs: 0 })) {
      await sendUnlessConditionFails(table.db, new PutCommand({ TableName: table.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
    }
  }
  const item: CustomerItem & { source_ms: number } = {
    ...key.customer(record.id),
    ...gsi1.customerByName(record.name, record.id),
    type: 'customer',
    id: record.id,
    name: record.name,
    parent,
    path,
    sms_enabled: record.sms_enabled,
    source_ms: record.sourceMs,
  };
  const unchanged = existing !== undefined && existing.name === record.name && existing.sms_enabled === record.sms_enabled;
  if (!(await putIfLater(table, item, record.sourceMs))) return { outcome: 'stale' };
  await setDirectoryEntry(table, groupId, 'customers', record.id, { name: record.name, source_ms: record.sourceMs });
  return { outcome: unchanged ? 'unchanged' : 'applied' };
};

/** Puts a customer or bundle item unless the stored one has a `source_ms` at or after `sourceMs`; false when it has. */
const putIfLater = (table: FeedTable, item: (CustomerItem | DataBundleItem) & { source_ms: number }, sourceMs: number): Promise<boolean> =>
  sendUnlessConditionFails(
    table.db,
    new PutCommand({
      TableName: table.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(PK) OR attribute_not_exists(source_ms) OR source_ms < :time',
      ExpressionAttributeValues: { ':time': sourceMs },
    }),
  );

/** Applies a `data_bundle` record. */
export const applyBundleRecord = async (table: FeedTable, record: FeedRecordOf<'data_bundle'>): Promise<EntityOutcome> => {
  const owner = await readCustomer(table, record.customer);
  if (!owner) return { outcome: 'rejected', reason: `customer ${record.customer} does not exist` };
  const groupId = owner.path[0]!;
  const found = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.dataBundle(record.id), ConsistentRead: true }))).Item as
    | (DataBundleItem & { source_ms?: number })
    | undefined;
  if (found && found.customer_id !== record.customer) {
    const before = await readCustomer(table, found.customer_id);
    if (before?.path[0] !== groupId) return { outcome: 'rejected', reason: `data bundle ${record.id} belongs to customer group ${before?.path[0] ?? found.customer_id}, not ${groupId}` };
  }
  if (found?.source_ms !== undefined && found.source_ms >= record.sourceMs) return { outcome: 'stale' };
  const figures = {
    allowance_mb: normaliseDecimal(record.allowance_mb),
    monthly_cost: normaliseDecimal(record.monthly_cost),
    per_sim_access_fee: normaliseDecimal(record.per_sim_access_fee),
  };
  const item: DataBundleItem & { source_ms: number } = {
    ...key.dataBundle(record.id),
    type: 'data_bundle',
    id: record.id,
    customer_id: record.customer,
    ...figures,
    pool_used_mb: found?.pool_used_mb ?? '0.00',
    source_ms: record.sourceMs,
  };
  const unchanged = found !== undefined && found.customer_id === record.customer && Object.entries(figures).every(([name, value]) => found[name as keyof typeof figures] === value);
  if (!(await putIfLater(table, item, record.sourceMs))) return { outcome: 'stale' };
  await setDirectoryEntry(table, groupId, 'bundles', record.id, { customer: record.customer, ...figures, source_ms: record.sourceMs });
  return { outcome: unchanged ? 'unchanged' : 'applied' };
};

/**
 * Sets one customer's or bundle's entry in a group's directory unless it holds a later one
 * (its `source_ms`); a directory that does not exist yet is made first (a new group, or one an
 * earlier version never gave one). A bundle's pool shards start at zero.
 */
const setDirectoryEntry = async (
  table: FeedTable,
  groupId: string,
  map: 'customers' | 'bundles',
  id: string,
  entry: Record<string, unknown> & { source_ms: number },
): Promise<void> => {
  const names: Record<string, string> = { '#map': map, '#id': id, '#time': 'source_ms' };
  const values: Record<string, unknown> = { ':entry': entry, ':time': entry.source_ms };
  const shards = map === 'bundles' ? Array.from({ length: poolShards }, (_, shard) => shard) : [];
  shards.forEach((shard) => (names[`#p${shard}`] = poolAttribute(id, shard)));
  if (shards.length > 0) values[':zero'] = 0;
  const update = new UpdateCommand({
    TableName: table.tableName,
    Key: key.groupDirectory(groupId),
    UpdateExpression: `SET #map.#id = :entry${shards.map((shard) => `, #p${shard} = if_not_exists(#p${shard}, :zero)`).join('')}`,
    ConditionExpression: 'attribute_exists(#map) AND (attribute_not_exists(#map.#id.#time) OR #map.#id.#time < :time)',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
  if (await sendUnlessConditionFails(table.db, update)) return;
  if (await readGroupDirectory(table, groupId, true)) return; // it holds a later entry
  await mergeDirectory(table, { ...key.groupDirectory(groupId), type: 'group_directory', group_id: groupId, customers: {}, bundles: {}, version: 0, pool_version: 0 });
  await sendUnlessConditionFails(table.db, update);
};
