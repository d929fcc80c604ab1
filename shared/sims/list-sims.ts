import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems } from '../db/batch-get';
import type { CustomerItem, SimItem } from '../db/items';
import { isUsablePartitionKey } from '../db/key-limits';
import { gsi1Partition, key, partition } from '../db/keys';
import { ApiError } from '../errors/api-error';
import { readGroupDirectory, type GroupDirectory } from '../groups/directory';
import { readListDirectory, readListIds, type ListDirectory, type ListRequest } from '../sim-lists/read-list';
import type { SimDeps, SimScope } from './deps';
import { validateListSimsQuery, type ListSimsFilters } from './list-query';
import { scopedSimIds, type ScopeFilter } from './scope-scan';
import { simObject } from './sim-object';
import type { SimList } from './sim-schema';

/** The list envelope of A1: the type of simListSchema (./sim-schema.ts). */
export type { SimList } from './sim-schema';

/**
 * A validated A1 request: its filters, the list it reads and that list's directory (read
 * beside the rate-limit write), or, for a customer group not yet on the list index, the
 * partition of sim_scope items to read instead.
 */
export interface ListSimsPlan {
  filters: ListSimsFilters;
  request: ListRequest;
  directory: ListDirectory;
  /** The group's names, bundle figures and pool usage (shared/groups/directory.ts), read beside the list's directory. */
  group?: GroupDirectory;
  /** `SCOPE#<customer>`: the key's customer, or the customer named by `customer` (groups not on the index). */
  partitionKey: string;
  /** Only SIMs owned directly by this customer (the `customer` filter). */
  ownerId?: string;
}

/** The customers named `name` in every group (one GSI1 query), before the caller is known. */
export type CustomersNamed = CustomerItem[] | undefined;

/**
 * The customers with the `customer` filter's name, in any group: one GSI1 query, started as
 * the request arrives (before authentication, beside it) so that a filtered list still takes
 * four round trips; nothing of it is used before the caller is verified. Undefined when the
 * request has no usable `customer` parameter (a name that cannot be a key matches no customer).
 */
export const customersNamed = async (deps: SimDeps, query: Record<string, string | undefined> | null | undefined): Promise<CustomersNamed> => {
  const name = query?.customer;
  if (name === undefined || !isUsablePartitionKey(gsi1Partition.customerByName(name))) return undefined;
  const output = await deps.db.send(
    new QueryCommand({
      TableName: deps.tableName,
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': gsi1Partition.customerByName(name) },
    }),
  );
  return ((output.Items ?? []) as CustomerItem[]).filter((item) => item.type === 'customer' && item.name === name);
};

/**
 * The id of the customer of `name` in the scope of `scope` (the key's customer or any of its
 * descendants: names are unique within a customer group), from the customers of that name;
 * 404 customer_not_found otherwise, a customer of another group or above the key included.
 */
export const scopedCustomer = (named: CustomersNamed, scope: SimScope): string => {
  const customer = (named ?? []).find((item) => Array.isArray(item.path) && item.path.includes(scope.customerId));
  if (!customer) throw new ApiError(404, 'customer_not_found', 'No customer with this name in the API key\'s customer group.');
  return customer.id;
};

/**
 * Validates an A1 request, resolves its `customer` filter from `named` (customersNamed) and
 * reads the list's directory: everything before the page's entries are read. Reads, never
 * writes, so it may run beside the rate-limit write and be discarded when that refuses the
 * request.
 */
export const planListSims = async (
  deps: SimDeps,
  scope: SimScope,
  query: Record<string, string | undefined> | null | undefined,
  named: Promise<CustomersNamed>,
): Promise<ListSimsPlan> => {
  const filters = validateListSimsQuery(query, deps.now());
  const ownerId = filters.customer === undefined ? undefined : scopedCustomer(await named, scope);
  const customerId = ownerId ?? scope.customerId;
  const request: ListRequest = {
    groupId: scope.customerPath[0] ?? scope.customerId,
    customerId,
    direct: ownerId !== undefined,
    status: filters.status,
    updatedAfter: filters.updated_after,
    page: filters.page,
    pageSize: filters.page_size,
  };
  const [directory, group] = await Promise.all([readListDirectory(deps, request), readGroupDirectory(deps, request.groupId)]);
  return { filters, request, directory, group, partitionKey: partition.simScope(customerId), ...(ownerId === undefined ? {} : { ownerId }) };
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
 * The ids of the page and the count, for a customer group not yet on the list index (an
 * earlier version's table, while `rebuild-list-index` runs): every sim_scope item of the list
 * is read (scopedSimIds), correct at any size but in time and read units in proportion to it.
 */
const legacyIds = async (deps: SimDeps, plan: ListSimsPlan): Promise<{ count: number; ids: number[] }> => {
  const { page, page_size: pageSize } = plan.filters;
  const ids = await scopedSimIds(deps, plan.partitionKey, scopeFilter(plan));
  const start = (page - 1) * pageSize;
  return { count: ids.length, ids: start < ids.length ? ids.slice(start, start + pageSize) : [] };
};

/**
 * A1: one page of the SIMs in the key's scope that match the filters, in the list envelope.
 * `count` is every match; `total_pages` is ceil(count / page_size) (0 when nothing matches); a
 * page beyond the last has an empty `results`. Without `updated_after` the list is in SIM id
 * order; with it, in order of update (docs/area-a.md, "Lists at fleet scale"). The directory
 * (planListSims) and then the page's entries (readListIds) of the list index give the page's
 * ids; the page's SIMs are then read in ONE BatchGetItem (at most 100 keys). Round trips and
 * read units do not grow with the number of SIMs.
 */
export const listSims = async (deps: SimDeps, scope: SimScope, plan: ListSimsPlan): Promise<SimList> => {
  const { page, page_size: pageSize } = plan.filters;
  const { count, ids: pageIds } = plan.directory.kind === 'legacy' ? await legacyIds(deps, plan) : await readListIds(deps, plan.request, plan.directory);
  const items = (await batchGetItems(deps.db, deps.tableName, pageIds.map(key.sim))) as unknown as SimItem[];
  const byId = new Map(items.map((item) => [Number(item.id), item]));
  const results = pageIds.flatMap((id) => {
    const sim = byId.get(id);
    // An entry without its SIM (a removal not yet applied to the index) is left out rather than failing the page.
    return sim && sim.type === 'sim' ? [simObject(sim, scope.customerId, plan.group)] : [];
  });
  return { count, page, page_size: pageSize, total_pages: Math.ceil(count / pageSize), results };
};
