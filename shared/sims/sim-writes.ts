import { BatchWriteCommand, DeleteCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../db/conditions';
import type { SimItem } from '../db/items';
import { key } from '../db/keys';
import { reservePositions } from '../sim-lists/positions';
import { claimMsisdnAlone, releaseMsisdn } from '../msisdn/msisdn-index';
import { isoWithOffset } from './sim-object';
import { sleep } from '../time/sleep';
import { isDecimalAmount } from '../vocabulary/amounts';

/**
 * The one write path of SIM items (issue #19, point 3): the seed loader on a table in use, the
 * admin CLI, the developer console, the operator feed and anything later write SIMs through
 * these functions. Each write stamps the SIM with `listed_at_ms` and, when `updated_at` moves,
 * a time position in the list of every customer on its path (shared/sim-lists/positions.ts);
 * the table's stream then keeps the list index exact (shared/sim-lists/maintain.ts) and makes
 * the lifecycle events. A writer never writes list items itself. The MSISDN index
 * (shared/msisdn/msisdn-index.ts) is kept here too: a new number is claimed before the SIM takes it (and a
 * SIM whose number another SIM holds is refused), a number given up is released after.
 */

/** A SIM refused because another SIM holds its MSISDN. */
export class MsisdnInUse extends Error {
  override name = 'MsisdnInUse';
  constructor(readonly sim: Pick<SimItem, 'id' | 'msisdn'>) {
    super(`msisdn ${String(sim.msisdn)} of SIM ${sim.id} is held by another SIM`);
  }
}

/**
 * A SIM write refused before anything of it was written: a field holds a value that the read
 * path could not show (an amount that is not a decimal string would make every list page and
 * read holding the SIM fail). The edges that take outside input check their values first (the
 * feed, the admin CLI, the console); this catches a caller that did not.
 */
export class MalformedSimField extends Error {
  override name = 'MalformedSimField';
  constructor(
    readonly simId: number,
    readonly field: string,
    readonly value: unknown,
  ) {
    super(`SIM ${simId}: ${field} must be a decimal amount such as "12.50", not ${JSON.stringify(value) ?? String(value)}`);
  }
}

/** The amounts of a SIM: decimal strings the API formats (shared/vocabulary/amounts.ts). */
const amountFields = ['data_used_mb', 'data_overage_mb', 'base_cost', 'overage_cost'] as const;

/** Throws MalformedSimField for the first amount of `fields` that is not a decimal string; `whole`: all four must be there. */
const refuseMalformedAmounts = (simId: number, fields: Partial<Record<(typeof amountFields)[number], unknown>>, whole: boolean): void => {
  for (const field of amountFields) {
    const value = fields[field];
    if ((value !== undefined || whole) && !isDecimalAmount(value)) throw new MalformedSimField(simId, field, value);
  }
};

/** The table SIMs are written to. */
export interface SimTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** Items per BatchWriteItem call. */
const batchSize = 25;

/**
 * Puts whole SIM items (new SIMs, or SIMs replaced as a whole), as they are given except for
 * their listing: time positions handed out in order of `updated_at`, `listed_at_ms` = `nowMs`.
 * Their MSISDNs are claimed first: MsisdnInUse (nothing of the SIMs written) when another SIM
 * holds one. A replaced SIM whose MSISDN changed keeps its old claim: change it with
 * changeSimsFields instead. MalformedSimField (nothing written) when a SIM's amount is not a
 * decimal string. Returns the items as written.
 */
export const putSims = async (table: SimTable, sims: readonly SimItem[], nowMs: number): Promise<SimItem[]> => {
  for (const sim of sims) refuseMalformedAmounts(sim.id, sim, true);
  const claimed = await Promise.all(sims.map((sim) => claimMsisdnAlone(table, sim)));
  const refused = sims.find((_sim, index) => !claimed[index]);
  if (refused) throw new MsisdnInUse(refused);
  const ordered = [...sims].sort((left, right) => left.updated_at_ms - right.updated_at_ms || left.id - right.id);
  const listing = await reservePositions(table, ordered, nowMs);
  const written = ordered.map((sim, index) => ({ ...sim, ...listing[index] }));
  const items = written.flatMap((sim) => [sim as unknown as Record<string, unknown>, simIccidItem(sim)]);
  for (let start = 0; start < items.length; start += batchSize) {
    let pending: Record<string, unknown>[] = items.slice(start, start + batchSize).map((Item) => ({ PutRequest: { Item } }));
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

/** One change of the batch form: a SIM as read, and the fields to set on it. */
export interface SimFieldChange {
  current: SimItem;
  fields: SimFields;
}

/** What one change of a batch did: written, not needed (nothing differed), or lost to another writer (read again and retry). */
export type SimChangeOutcome = { outcome: 'written' | 'unchanged'; sim: SimItem } | { outcome: 'lost'; sim: SimItem };

/**
 * Changes fields of SIMs read as `current`: for each, only the fields whose value differs are
 * written, with `updated_at` = `nowMs` and new time positions (handed out for the whole batch
 * at once); a change that changes nothing writes nothing (and moves no `updated_at`). Each is
 * conditional on its SIM still being as read (its `updated_at_ms` and the changed fields'
 * values), so two writers cannot interleave: `lost` when another writer came first.
 * MalformedSimField (nothing of the batch written) when an amount to set is not a decimal string.
 */
export const changeSimsFields = async (table: SimTable, changes: readonly SimFieldChange[], nowMs: number): Promise<SimChangeOutcome[]> => {
  for (const { current, fields } of changes) refuseMalformedAmounts(current.id, fields, false);
  const planned = changes.map(({ current, fields }) => {
    const changed = Object.entries(fields).filter(([name, value]) => value !== undefined && !sameValue(current[name as keyof SimItem], value));
    const next: SimItem = { ...current, ...Object.fromEntries(changed), updated_at: isoWithOffset(nowMs), updated_at_ms: nowMs };
    return { current, changed, next };
  });
  const moving = planned.filter((plan) => plan.changed.length > 0);
  const listings = await reservePositions(table, moving.map((plan) => plan.next), nowMs);
  moving.forEach((plan, index) => Object.assign(plan.next, listings[index]));
  return Promise.all(
    planned.map(async ({ current, changed, next }): Promise<SimChangeOutcome> => {
      if (changed.length === 0) return { outcome: 'unchanged', sim: current };
      const newNumber = changed.some(([name]) => name === 'msisdn');
      if (newNumber && !(await claimMsisdnAlone(table, next))) throw new MsisdnInUse(next);
      const written = await writeChangedFields(table, current, changed.map(([name]) => name), next);
      if (newNumber && written && current.msisdn) await releaseMsisdnAlone(table, current.msisdn, current.id);
      if (written && next.customer_id !== current.customer_id) await putSimIccid(table, next);
      if (newNumber && !written && next.msisdn) await releaseMsisdnAlone(table, next.msisdn, next.id);
      return written ? { outcome: 'written', sim: next } : { outcome: 'lost', sim: current };
    }),
  );
};

/**
 * Changes fields of one SIM read as `current` (changeSimsFields for one): `written` true when
 * written or when nothing differed, false when another writer came first. Returns the SIM as
 * it now is.
 */
export const changeSimFields = async (
  table: SimTable,
  current: SimItem,
  fields: SimFields,
  nowMs: number,
): Promise<{ written: boolean; sim: SimItem }> => {
  const [result] = await changeSimsFields(table, [{ current, fields }], nowMs);
  return { written: result!.outcome !== 'lost', sim: result!.sim };
};

/** The conditional update of one SIM's changed fields with its new update time and listing. */
const writeChangedFields = async (table: SimTable, current: SimItem, changed: string[], next: SimItem): Promise<boolean> => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':previous': current.updated_at_ms };
  const sets = [...changed, 'updated_at', 'updated_at_ms', 'listed_at_ms', 'list_pos'].map((name, index) => {
    names[`#f${index}`] = name;
    values[`:f${index}`] = next[name as keyof SimItem];
    return `#f${index} = :f${index}`;
  });
  const unchangedSince = changed.map((name, index) => {
    const previous = current[name as keyof SimItem];
    if (previous === undefined) return `attribute_not_exists(#f${index})`;
    values[`:p${index}`] = previous;
    return `#f${index} = :p${index}`;
  });
  return sendUnlessConditionFails(
    table.db,
    new UpdateCommand({
      TableName: table.tableName,
      Key: key.sim(current.id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: ['attribute_exists(PK)', 'updated_at_ms = :previous', ...unchangedSince].join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
};

/** Removes a SIM (its list entries follow from the stream) and releases its MSISDN. False when there was none. */
export const removeSim = async (table: SimTable, simId: number): Promise<boolean> => {
  const removed = await table.db.send(
    new DeleteCommand({ TableName: table.tableName, Key: key.sim(simId), ReturnValues: 'ALL_OLD' }),
  );
  const sim = removed.Attributes as SimItem | undefined;
  if (sim?.msisdn) await releaseMsisdnAlone(table, sim.msisdn, simId);
  if (sim?.iccid) await table.db.send(new DeleteCommand({ TableName: table.tableName, Key: key.simIdByIccid(sim.iccid) }));
  return sim !== undefined;
};

/** Releases an MSISDN claim while it is still that SIM's (a claim of another SIM stays). */
export const releaseMsisdnAlone = async (table: SimTable, msisdn: string, simId: number): Promise<void> => {
  const { Update } = releaseMsisdn(table.tableName, msisdn, simId);
  await sendUnlessConditionFails(table.db, new UpdateCommand(Update));
};

/**
 * The item that finds a SIM by its ICCID in the base table (the operator feed's records name
 * SIMs by ICCID and read these 100 at a time): the SIM's id and its owner and path, which a
 * writer that moves the SIM keeps up to date (a stale copy only costs the feed a read).
 */
export const simIccidItem = (sim: Pick<SimItem, 'id' | 'iccid' | 'customer_id' | 'customer_path'>): Record<string, unknown> => ({
  ...key.simIdByIccid(sim.iccid),
  type: 'sim_iccid',
  sim_id: sim.id,
  customer_id: sim.customer_id,
  customer_path: [...sim.customer_path],
});

/** Writes a SIM's ICCID item (after a create or a change of owner). */
export const putSimIccid = async (table: SimTable, sim: Pick<SimItem, 'id' | 'iccid' | 'customer_id' | 'customer_path'>): Promise<void> => {
  await table.db.send(new PutCommand({ TableName: table.tableName, Item: simIccidItem(sim) }));
};
