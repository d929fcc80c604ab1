import { BatchWriteCommand, DeleteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../db/conditions';
import type { SimItem } from '../db/items';
import { key } from '../db/keys';
import { reservePositions } from '../sim-lists/positions';
import { isoWithOffset } from './sim-object';

/**
 * The one write path of SIM items (issue #19, point 3): the seed loader on a table in use, the
 * admin CLI, the developer console, the operator feed and anything later write SIMs through
 * these functions. Each write stamps the SIM with `listed_at_ms` and, when `updated_at` moves,
 * a time position in the list of every customer on its path (shared/sim-lists/positions.ts);
 * the table's stream then keeps the list index exact (shared/sim-lists/maintain.ts) and makes
 * the lifecycle events. A writer never writes list items itself.
 */

/** The table SIMs are written to. */
export interface SimTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** Items per BatchWriteItem call. */
const batchSize = 25;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Puts whole SIM items (new SIMs, or SIMs replaced as a whole), as they are given except for
 * their listing: time positions handed out in order of `updated_at`, `listed_at_ms` = `nowMs`.
 * Returns the items as written.
 */
export const putSims = async (table: SimTable, sims: readonly SimItem[], nowMs: number): Promise<SimItem[]> => {
  const ordered = [...sims].sort((left, right) => left.updated_at_ms - right.updated_at_ms || left.id - right.id);
  const listing = await reservePositions(table, ordered, nowMs);
  const written = ordered.map((sim, index) => ({ ...sim, ...listing[index] }));
  for (let start = 0; start < written.length; start += batchSize) {
    let pending: Record<string, unknown>[] = written.slice(start, start + batchSize).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      if (attempt > 10) throw new Error(`${pending.length} SIM writes stayed unprocessed`);
      if (attempt > 1) await sleep(Math.min(50 * 2 ** (attempt - 2), 2000) * (0.5 + Math.random() / 2));
      const output = await table.db.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }));
      pending = (output.UnprocessedItems?.[table.tableName] ?? []) as Record<string, unknown>[];
    }
  }
  return written;
};

/** The fields of a SIM a change may set (owner fields move it to another customer). */
export type SimFields = Partial<
  Pick<
    SimItem,
    | 'msisdn'
    | 'status'
    | 'connection_status'
    | 'customer_id'
    | 'customer_name'
    | 'customer_path'
    | 'tariff_name'
    | 'data_used_mb'
    | 'data_overage_mb'
    | 'base_cost'
    | 'overage_cost'
    | 'data_bundle'
  >
>;

const sameValue = (left: unknown, right: unknown): boolean => JSON.stringify(left) === JSON.stringify(right);

/**
 * Changes fields of a SIM read as `current`: only the fields whose value differs are written,
 * with `updated_at` = `nowMs` and new time positions; a change that changes nothing writes
 * nothing (and moves no `updated_at`). Conditional on the SIM still being as read (its
 * `updated_at_ms` and the changed fields' values), so two writers cannot interleave: false
 * when another writer came first (read again and retry), true when written. Returns the SIM
 * as written.
 */
export const changeSimFields = async (
  table: SimTable,
  current: SimItem,
  fields: SimFields,
  nowMs: number,
): Promise<{ written: boolean; sim: SimItem }> => {
  const changed = Object.entries(fields).filter(([name, value]) => value !== undefined && !sameValue(current[name as keyof SimItem], value));
  if (changed.length === 0) return { written: true, sim: current };
  const next: SimItem = { ...current, ...Object.fromEntries(changed), updated_at: isoWithOffset(nowMs), updated_at_ms: nowMs };
  const [listing] = await reservePositions(table, [next], nowMs);
  Object.assign(next, listing);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':previous': current.updated_at_ms };
  const sets = [...changed.map(([name]) => name), 'updated_at', 'updated_at_ms', 'listed_at_ms', 'list_pos'].map((name, index) => {
    names[`#f${index}`] = name;
    values[`:f${index}`] = next[name as keyof SimItem];
    return `#f${index} = :f${index}`;
  });
  const unchangedSince = changed.map(([name], index) => {
    const previous = current[name as keyof SimItem];
    if (previous === undefined) return `attribute_not_exists(#f${index})`;
    values[`:p${index}`] = previous;
    return `#f${index} = :p${index}`;
  });
  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key.sim(current.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: ['attribute_exists(PK)', 'updated_at_ms = :previous', ...unchangedSince].join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return { written: true, sim: next };
  } catch (error) {
    if (isConditionFailure(error)) return { written: false, sim: current };
    throw error;
  }
};

/** Removes a SIM (its list entries follow from the stream). False when there was none. */
export const removeSim = async (table: SimTable, simId: number): Promise<boolean> => {
  const removed = await table.db.send(
    new DeleteCommand({ TableName: table.tableName, Key: key.sim(simId), ReturnValues: 'ALL_OLD' }),
  );
  return removed.Attributes !== undefined;
};
