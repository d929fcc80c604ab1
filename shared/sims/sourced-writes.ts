import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, sendUnlessConditionFails } from '../db/conditions';
import type { SimItem } from '../db/items';
import { key } from '../db/keys';
import { reservePositions, type ListingAttributes } from '../sim-lists/positions';
import { concurrencyLimit } from '../async/limit';
import { claimMsisdnAlone } from '../msisdn/msisdn-index';
import { isoWithOffset } from './sim-object';
import { MsisdnInUse, putSimIccid, releaseMsisdnAlone, simIccidItem, type SimTable } from './sim-writes';

/**
 * The SIM write path for records that carry a source time (the operator feed, issue #20): a
 * field is set only when the record's source time is later than the latest source time the
 * service has received for that field (`src_<field>`, epoch ms), and every record that is not
 * late moves that time forward for the fields it carries, even when the value is the same, so a
 * late record never wins over a newer one that repeated the stored value. Usage follows its
 * month: a later month replaces the month-to-date figures, the same month applies with a later
 * source time. `updated_at` moves (and time positions are taken) only when a value changes.
 *
 * Decided by conditional writes, never by a read-then-write race: a record that arrives in
 * order is one conditional UpdateItem (its fields all newer and at least one value different);
 * otherwise the SIM is read and one conditional write applies what is newer (or only moves the
 * times), again conditional on what was read.
 */

/** A field a sourced record may set, and its latest-time attribute. */
export const sourcedFields = ['status', 'connection_status', 'msisdn', 'tariff_name', 'base_cost', 'data_bundle', 'customer'] as const;

/** A sourced field. */
export type SourcedField = (typeof sourcedFields)[number];

/** The latest-time attribute of a field (or of usage). */
const timeOf = (field: SourcedField | 'usage') => `src_${field}`;

/** The new owner of a SIM, as a `customer` field sets it. */
export interface Owner {
  customer_id: string;
  customer_name: string;
  customer_path: string[];
}

/** A SIM's month-to-date usage for a month. */
export interface Usage {
  month: string;
  data_used_mb: string;
  data_overage_mb: string;
  overage_cost: string;
}

/** One sourced record's change of an existing SIM. */
export interface SourcedChange {
  simId: number;
  iccid: string;
  sourceMs: number;
  /** Fields set (`customer` as the new owner, `data_bundle` as the SIM item's bundle copy or null). */
  fields: {
    status?: string;
    connection_status?: string;
    msisdn?: string | null;
    tariff_name?: string | null;
    base_cost?: string;
    data_bundle?: SimItem['data_bundle'];
    customer?: Owner;
  };
  usage?: Usage;
  /** The owner the writer believes the SIM has (from its ICCID item): the path its time positions are for. */
  expectedOwner?: Owner;
}

/** What a sourced change did: `applied` (a value changed), `unchanged` (only times moved), `stale` (older than what is stored), `missing` (no such SIM). */
export type SourcedOutcome = { outcome: 'applied' | 'unchanged' | 'stale'; sim?: SimItem } | { outcome: 'missing' } | { outcome: 'refused'; reason: string };

/** The SIM item attributes a field's value writes. */
const attributesOf = (change: SourcedChange): Record<string, unknown> => {
  const { customer, ...plain } = change.fields;
  return {
    ...Object.fromEntries(Object.entries(plain).filter(([, value]) => value !== undefined)),
    ...(customer ? { customer_id: customer.customer_id, customer_name: customer.customer_name, customer_path: customer.customer_path } : {}),
    ...(change.usage
      ? { data_used_mb: change.usage.data_used_mb, data_overage_mb: change.usage.data_overage_mb, overage_cost: change.usage.overage_cost, usage_month: change.usage.month }
      : {}),
  };
};

/** The fields (and usage) a change carries, with their latest-time attribute names. */
const carried = (change: SourcedChange): (SourcedField | 'usage')[] => [
  ...sourcedFields.filter((field) => change.fields[field] !== undefined),
  ...(change.usage ? (['usage'] as const) : []),
];

/** Whether a field of a change is newer than what `sim` has received. */
const isNewer = (sim: SimItem & Record<string, unknown>, change: SourcedChange, field: SourcedField | 'usage'): boolean => {
  const stored = sim[timeOf(field)] as number | undefined;
  if (field !== 'usage') return stored === undefined || stored < change.sourceMs;
  const month = (sim.usage_month as string | undefined) ?? '';
  return month < change.usage!.month || (month === change.usage!.month && (stored === undefined || stored < change.sourceMs));
};

/** Whether a field's value differs from what `sim` holds. */
const differs = (sim: SimItem & Record<string, unknown>, change: SourcedChange, field: SourcedField | 'usage'): boolean => {
  if (field === 'usage') {
    const usage = change.usage!;
    return sim.data_used_mb !== usage.data_used_mb || sim.data_overage_mb !== usage.data_overage_mb || sim.overage_cost !== usage.overage_cost || sim.usage_month !== usage.month;
  }
  if (field === 'customer') return sim.customer_id !== change.fields.customer!.customer_id;
  if (field === 'data_bundle') return (sim.data_bundle?.id ?? null) !== (change.fields.data_bundle?.id ?? null);
  return (sim[field] ?? null) !== change.fields[field];
};

/** The path the SIM will have after the change (its positions' path). */
const pathAfter = (change: SourcedChange, current: Pick<SimItem, 'customer_path'>): string[] => change.fields.customer?.customer_path ?? current.customer_path;

/** An UpdateExpression under construction. */
const expression = () => {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  let counter = 0;
  const name = (attribute: string) => {
    const placeholder = `#n${counter++}`;
    names[placeholder] = attribute;
    return placeholder;
  };
  const value = (content: unknown) => {
    const placeholder = `:v${counter++}`;
    values[placeholder] = content;
    return placeholder;
  };
  return { names, values, name, value };
};

/**
 * SIMs written at once in this container (across the messages of a batch): about the SDK's
 * sockets (50), so that throughput stays and memory does not grow with the batch.
 */
const simWrites = concurrencyLimit(48);

/**
 * Applies sourced changes of existing SIMs (several SIMs at once, at most 48 in this container;
 * changes of one SIM in the order given): time positions for the fast writes are taken for all
 * of them in one call.
 */
export const applySourcedChanges = async (table: SimTable, changes: readonly SourcedChange[], nowMs: number): Promise<SourcedOutcome[]> => {
  const bySim = new Map<number, number[]>();
  changes.forEach((change, index) => bySim.set(change.simId, [...(bySim.get(change.simId) ?? []), index]));
  // Positions for the path each change expects (the fast write); a change whose path is not known reads first.
  const fast = changes.map((change, index) => ({ change, index })).filter(({ change }) => change.expectedOwner !== undefined);
  const listings = await reservePositions(table, fast.map(({ change }) => ({ customer_path: pathAfter(change, change.expectedOwner!), updated_at_ms: nowMs })), nowMs);
  const listingOf = new Map(fast.map(({ index }, position) => [index, listings[position]!]));
  const outcomes: SourcedOutcome[] = new Array(changes.length);
  await Promise.all(
    [...bySim.values()].map((indexes) =>
      simWrites(async () => {
        for (const index of indexes) outcomes[index] = await applyOne(table, changes[index]!, nowMs, listingOf.get(index));
      }),
    ),
  );
  return outcomes;
};

/** One sourced change: the fast conditional write when the writer knows the path, else (or when it lost) read and write. */
const applyOne = async (table: SimTable, given: SourcedChange, nowMs: number, listing: ListingAttributes | undefined): Promise<SourcedOutcome> => {
  let change = given;
  const number = change.fields.msisdn;
  if (number && !(await claimMsisdnAlone(table, { id: change.simId, iccid: change.iccid, msisdn: number }))) {
    // Another SIM holds the number: refused, unless the record is late for it anyway (then its other fields may still apply).
    const sim = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.sim(change.simId), ConsistentRead: true }))).Item;
    if (sim?.type !== 'sim') return { outcome: 'missing' };
    if (isNewer(sim as SimItem & Record<string, unknown>, change, 'msisdn')) return { outcome: 'refused', reason: `msisdn ${number} is held by another SIM` };
    const { msisdn: _late, ...fields } = change.fields;
    change = { ...change, fields };
    if (carried(change).length === 0) return { outcome: 'stale', sim: sim as SimItem };
    return writeChange(table, change, nowMs, listing);
  }
  const outcome = await writeChange(table, change, nowMs, listing);
  // A number claimed for a record that did not set it (late, or the SIM gone) is given back.
  if (number && (outcome.outcome === 'missing' || ('sim' in outcome && outcome.sim !== undefined && outcome.sim.msisdn !== number))) await releaseMsisdnAlone(table, number, change.simId);
  return outcome;
};

const writeChange = async (table: SimTable, change: SourcedChange, nowMs: number, listing: ListingAttributes | undefined): Promise<SourcedOutcome> => {
  // A change of number takes the read path: the number given up is known only from the read.
  const fastPath = listing && change.expectedOwner && change.fields.msisdn === undefined;
  if (fastPath && (await fastWrite(table, change, nowMs, listing))) {
    if (change.fields.customer) await putSimIccid(table, { id: change.simId, iccid: change.iccid, ...change.fields.customer });
    return { outcome: 'applied' };
  }
  for (let attempt = 1; attempt <= 8; attempt += 1) {
    const read = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.sim(change.simId), ConsistentRead: true }))).Item;
    if (read?.type !== 'sim') return { outcome: 'missing' };
    const outcome = await readWrite(table, read as SimItem & Record<string, unknown>, change, nowMs);
    if (outcome) return outcome;
  }
  throw new Error(`SIM ${change.simId} kept changing under a feed record; it is tried again`);
};

/**
 * The write of a record in order: every carried field newer than stored, at least one value
 * different, the SIM's owner the expected one (its positions' path). False when the condition
 * did not hold (late, repeated or reordered record, or another owner): then read and write.
 */
const fastWrite = (table: SimTable, change: SourcedChange, nowMs: number, listing: ListingAttributes): Promise<boolean> =>
  sendUnlessConditionFails(table.db, fastWriteCommand(table.tableName, change, nowMs, listing));

/**
 * The one conditional UpdateItem of a record in order (exported for the benchmark, which sends
 * the same requests directly to compare rates): sets the carried fields, their latest times,
 * updated_at and the time positions, if every carried field is newer, one value differs and
 * the owner is the expected one.
 */
export const fastWriteCommand = (tableName: string, change: SourcedChange, nowMs: number, listing: ListingAttributes): UpdateCommand => {
  const fields = carried(change);
  const { names, values, name, value } = expression();
  const sets = [
    ...Object.entries(attributesOf(change)).map(([attribute, content]) => `${name(attribute)} = ${value(content)}`),
    ...fields.map((field) => `${name(timeOf(field))} = ${value(change.sourceMs)}`),
    `${name('updated_at')} = ${value(isoWithOffset(nowMs))}`,
    `${name('updated_at_ms')} = ${value(nowMs)}`,
    `${name('listed_at_ms')} = ${value(listing.listed_at_ms)}`,
    `${name('list_pos')} = ${value(listing.list_pos)}`,
  ];
  const time = value(change.sourceMs);
  const newer = fields.map((field) => {
    const attribute = name(timeOf(field));
    if (field !== 'usage') return `(attribute_not_exists(${attribute}) OR ${attribute} < ${time})`;
    const month = name('usage_month');
    const given = value(change.usage!.month);
    return `(attribute_not_exists(${month}) OR ${month} < ${given} OR (${month} = ${given} AND (attribute_not_exists(${attribute}) OR ${attribute} < ${time})))`;
  });
  const different = fields.map((field) => {
    if (field === 'usage') {
      const usage = change.usage!;
      return ['data_used_mb', 'data_overage_mb', 'overage_cost'].map((attribute) => `${name(attribute)} <> ${value(usage[attribute as keyof Usage])}`).join(' OR ') +
        ` OR ${name('usage_month')} <> ${value(usage.month)}`;
    }
    if (field === 'customer') return `${name('customer_id')} <> ${value(change.fields.customer!.customer_id)}`;
    if (field === 'data_bundle') {
      const bundle = name('data_bundle');
      const id = change.fields.data_bundle?.id;
      return id === undefined ? `attribute_exists(${bundle}.id)` : `(attribute_not_exists(${bundle}.id) OR ${bundle}.id <> ${value(id)})`;
    }
    return `${name(field)} <> ${value(change.fields[field])}`;
  });
  const owner = change.fields.customer ? [] : [`${name('customer_id')} = ${value(change.expectedOwner!.customer_id)}`];
  return new UpdateCommand({
    TableName: tableName,
    Key: key.sim(change.simId),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: [`attribute_exists(${name('PK')})`, ...owner, ...newer, `(${different.join(' OR ')})`].join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
};

/**
 * The write of a record decided from the SIM as read: the newer fields (none: stale, nothing
 * written), their values when any differs (with updated_at and new positions) or else their
 * times only; conditional on the times, owner and update time read. Undefined when another
 * writer came first (read again).
 */
const readWrite = async (table: SimTable, sim: SimItem & Record<string, unknown>, change: SourcedChange, nowMs: number): Promise<SourcedOutcome | undefined> => {
  const newer = carried(change).filter((field) => isNewer(sim, change, field));
  if (newer.length === 0) return { outcome: 'stale', sim };
  const changing = newer.filter((field) => differs(sim, change, field));
  const { names, values, name, value } = expression();
  const sets = newer.map((field) => `${name(timeOf(field))} = ${value(change.sourceMs)}`);
  const applied = { ...change, fields: Object.fromEntries(Object.entries(change.fields).filter(([field]) => changing.includes(field as SourcedField))), usage: changing.includes('usage') ? change.usage : undefined };
  let next: SimItem = sim;
  if (changing.length > 0) {
    const [listing] = await reservePositions(table, [{ customer_path: pathAfter(applied, sim), updated_at_ms: nowMs }], nowMs);
    const attributes = { ...attributesOf(applied), updated_at: isoWithOffset(nowMs), updated_at_ms: nowMs, ...listing };
    for (const [attribute, content] of Object.entries(attributes)) sets.push(`${name(attribute)} = ${value(content)}`);
    next = { ...sim, ...attributes } as SimItem;
  }
  const unchangedSince = [
    ...newer.map((field) => {
      const attribute = name(timeOf(field));
      const stored = sim[timeOf(field)];
      return stored === undefined ? `attribute_not_exists(${attribute})` : `${attribute} = ${value(stored)}`;
    }),
    `${name('updated_at_ms')} = ${value(sim.updated_at_ms)}`,
    `${name('customer_id')} = ${value(sim.customer_id)}`,
    ...(newer.includes('usage') ? [sim.usage_month === undefined ? `attribute_not_exists(${name('usage_month')})` : `${name('usage_month')} = ${value(sim.usage_month)}`] : []),
  ];
  const written = await sendUnlessConditionFails(
    table.db,
    new UpdateCommand({
      TableName: table.tableName,
      Key: key.sim(sim.id),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: [`attribute_exists(${name('PK')})`, ...unchangedSince].join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
  if (!written) return undefined;
  if (changing.includes('msisdn') && sim.msisdn && sim.msisdn !== next.msisdn) await releaseMsisdnAlone(table, sim.msisdn, sim.id);
  if (changing.includes('customer')) await putSimIccid(table, next);
  return { outcome: changing.length > 0 ? 'applied' : 'unchanged', sim: next };
};

/** What createSim did: made it, or found the SIM (or its ICCID) there already. */
export type CreateOutcome = 'created' | 'exists' | 'iccid-taken';

/**
 * Creates a SIM a sourced record describes (the operator feed's `sim` record for an unknown
 * id): its ICCID item first (refused when the ICCID is another SIM's), its MSISDN claimed, time
 * positions taken, then the SIM item if none has its id, with `src_<field>` at the record's time
 * for every field the record carried. `exists` when the id is taken (a retried record, or
 * another writer): the caller then applies the record as a change.
 */
export const createSim = async (table: SimTable, sim: SimItem, carriedFields: readonly SourcedField[], sourceMs: number, nowMs: number): Promise<CreateOutcome> => {
  let mappingIsNew = false;
  try {
    const put = await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: simIccidItem(sim),
        ConditionExpression: 'attribute_not_exists(PK) OR sim_id = :id',
        ExpressionAttributeValues: { ':id': sim.id },
        ReturnValues: 'ALL_OLD',
      }),
    );
    mappingIsNew = put.Attributes === undefined;
  } catch (error) {
    if (isConditionFailure(error)) return 'iccid-taken';
    throw error;
  }
  if (sim.msisdn && !(await claimMsisdnAlone(table, sim))) {
    // Nothing of the SIM stays: its ICCID item goes again (unless an earlier try wrote it).
    if (mappingIsNew) {
      const own = { ConditionExpression: 'sim_id = :id', ExpressionAttributeValues: { ':id': sim.id } };
      await sendUnlessConditionFails(table.db, new DeleteCommand({ TableName: table.tableName, Key: key.simIdByIccid(sim.iccid), ...own }));
    }
    throw new MsisdnInUse(sim);
  }
  const [listing] = await reservePositions(table, [sim], nowMs);
  const item = { ...sim, ...listing, ...Object.fromEntries(carriedFields.map((field) => [timeOf(field), sourceMs])) };
  return (await sendUnlessConditionFails(table.db, new PutCommand({ TableName: table.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }))) ? 'created' : 'exists';
};
