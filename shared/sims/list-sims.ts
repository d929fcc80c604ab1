import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '../db/batch-get';
import type { CustomerItem, SimItem } from '../db/items';
import { isUsablePartitionKey } from '../db/key-limits';
import { gsi1Partition, key, partition } from '../db/keys';
import { ApiError } from '../http/api-error';
import type { SimDeps, SimScope } from './deps';
import { parseListSimsQuery, type ListSimsFilters } from './list-query';
import { scopedSimIds, type ScopeFilter } from './scope-scan';
import { simObject } from './sim-object';
import type { SimList } from './sim-schema';

/** The list envelope of A1: the type of simListSchema (./sim-schema.ts). */
export type { SimList } from './sim-schema';

/** A validated A1 request: its filters and the partition of sim_scope items to read. */
export interface ListSimsPlan {
  filters: ListSimsFilters;
  /** `SCOPE#<customer>`: the key's customer, or the customer named by `customer`. */
  partitionKey: string;
  /** Only SIMs owned directly by this customer (the `customer` filter). */
  ownerId?: string;
}

/**
 * The id of the customer of `name` in the scope of `scope` (the key's customer or any of its
 * descendants, found through GSI1 customerByName: names are unique within a customer group);
 * 404 customer_not_found otherwise, a customer of another group or above the key included.
 * A name that cannot be a key (over 2,048 bytes with its prefix, or not carriable text) names
 * no customer: 404 at once, without a query.
 */
export const resolveScopedCustomer = async (deps: SimDeps, scope: SimScope, name: string): Promise<string> => {
  const notFound = () => new ApiError(404, 'customer_not_found', 'No customer with this name in the API key\'s customer group.');
  if (!isUsablePartitionKey(gsi1Partition.customerByName(name))) throw notFound();
  const output = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': gsi1Partition.customerByName(name) },
    }),
  );
  const customer = ((output.Items ?? []) as CustomerItem[]).find(
    (item) => item.type === 'customer' && item.name === name && Array.isArray(item.path) && item.path.includes(scope.customerId),
  );
  if (!customer) throw notFound();
  return customer.id;
};

/**
 * Validates an A1 request and resolves its `customer` filter (one GSI1 query when given):
 * everything before the SIMs are read. Reads nothing else, so it may run beside the
 * rate-limit write and be discarded when that refuses the request.
 */
export const planListSims = async (
  deps: SimDeps,
  scope: SimScope,
  query: Record<string, string | undefined> | null | undefined,
): Promise<ListSimsPlan> => {
  const filters = parseListSimsQuery(query, deps.now());
  if (filters.customer === undefined) return { filters, partitionKey: partition.simScope(scope.customerId) };
  const ownerId = await resolveScopedCustomer(deps, scope, filters.customer);
  return { filters, partitionKey: partition.simScope(ownerId), ownerId };
};

const scopeFilter = (plan: ListSimsPlan): ScopeFilter | undefined => {
  const parts: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (plan.filters.status !== undefined) {
    parts.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = plan.filters.status;
  }
  if (plan.filters.updated_after !== undefined) {
    parts.push('#updated > :after');
    names['#updated'] = 'updated_at_ms';
    values[':after'] = plan.filters.updated_after;
  }
  if (plan.ownerId !== undefined) {
    parts.push('#owner = :owner');
    names['#owner'] = 'owner_id';
    values[':owner'] = plan.ownerId;
  }
  return parts.length === 0 ? undefined : { expression: parts.join(' AND '), names, values };
};

/**
 * A1: one page of the SIMs in the key's scope that match the filters, ordered by SIM id
 * ascending, in the list envelope. `count` is every match; `total_pages` is
 * ceil(count / page_size) (0 when nothing matches); a page beyond the last has an empty
 * `results`. Only the small sim_scope items are read to count and to choose the page's ids
 * (scopedSimIds); the page's SIMs are then read in ONE BatchGetItem (at most 100 keys).
 */
export const listSims = async (deps: SimDeps, scope: SimScope, plan: ListSimsPlan): Promise<SimList> => {
  const { page, page_size: pageSize } = plan.filters;
  const ids = await scopedSimIds(deps, plan.partitionKey, scopeFilter(plan));
  const start = (page - 1) * pageSize;
  const pageIds = start < ids.length ? ids.slice(start, start + pageSize) : [];
  const items = (await batchGetItems(deps.db, deps.tableName, pageIds.map(key.sim))) as unknown as SimItem[];
  const byId = new Map(items.map((item) => [Number(item.id), item]));
  const results = pageIds.flatMap((id) => {
    const sim = byId.get(id);
    // A scope item without its SIM (a write in flight) is left out rather than failing the page.
    return sim && sim.type === 'sim' ? [simObject(sim, scope.customerId)] : [];
  });
  return { count: ids.length, page, page_size: pageSize, total_pages: Math.ceil(ids.length / pageSize), results };
};
