import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { cancellationCodes, isConditionFailure, isTransactionCanceled, sendUnlessConditionFails } from '../db/conditions';
import type { SimItem } from '../db/items';
import { key } from '../db/keys';
import { TransientFailure } from '../errors/outage';
import { reservePositions, type ListingAttributes } from '../sim-lists/positions';
import { claimCheck, claimMsisdnAt, msisdnDigits } from '../msisdn/msisdn-index';
import { isoWithOffset } from './sim-object';
import { changeSimFields, putSimIccid, releaseMsisdnAlone, simIccidItem, type SimTable } from './sim-writes';

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
 *
 * MSISDNs (issue #31): a number belongs to the SIM of the latest record that names it, in any
 * order of arrival. Every record that names a number registers itself in the number's claim
 * (shared/msisdn/msisdn-index.ts, claimMsisdnAt); the latest wins it, the SIM that held it
 * until then has its msisdn set to null (its `src_msisdn` untouched, so its own later records
 * still apply), and the winner's write is conditional on the claim still being its own (one
 * transaction). A record whose number a later record named sets its SIM's msisdn to null.
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

/**
 * The path a change's fast write takes its time positions in (reservePositions, for a whole
 * message at once), or undefined when the change has no fast write: its owner is not known
 * beforehand, or it changes the SIM's number (the number given up is known only from a read).
 */
export const fastListingPath = (change: SourcedChange): string[] | undefined =>
  change.expectedOwner && change.fields.msisdn === undefined ? pathAfter(change, change.expectedOwner) : undefined;

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

/** Attempts at a SIM that keeps changing under a record before the message is given back (TransientFailure). */
const maxAttempts = 8;

/**
 * Applies one sourced change of an existing SIM: the fast conditional write when the writer
 * knows the SIM's path and took a time position for it (`listing`, from fastListingPath), else
 * (or when that write's condition did not hold) read and write; a change of number through the
 * number's claim (claimMsisdnAt). Changes of one SIM are applied one after the other by the
 * caller, in their order.
 */
export const applySourcedChange = async (table: SimTable, change: SourcedChange, nowMs: number, listing?: ListingAttributes): Promise<SourcedOutcome> => {
  if (change.fields.msisdn !== undefined) return applyNumberChange(table, change, nowMs);
  if (listing && change.expectedOwner && (await fastWrite(table, change, nowMs, listing))) {
    if (change.fields.customer) await putSimIccid(table, { id: change.simId, iccid: change.iccid, ...change.fields.customer });
    return { outcome: 'applied' };
  }
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    const sim = await readSim(table, change.simId);
    if (!sim) return { outcome: 'missing' };
    const outcome = await readWrite(table, sim, change, nowMs);
    if (outcome && outcome !== 'claim-lost') return outcome;
  }
  throw new TransientFailure(`SIM ${change.simId} kept changing under a feed record; it is tried again`);
};

/** A SIM item read strongly consistent, or undefined. */
const readSim = async (table: SimTable, simId: number): Promise<(SimItem & Record<string, unknown>) | undefined> => {
  const item = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.sim(simId), ConsistentRead: true }))).Item;
  return item?.type === 'sim' ? (item as SimItem & Record<string, unknown>) : undefined;
};

/**
 * A change that carries `msisdn`: read the SIM; a number named registers the record in the
 * number's claim (whether or not the record is newer for this SIM's msisdn); when it wins, the
 * former holder loses the number and this SIM's write is conditional on the claim; when a later
 * record holds the claim, this record's msisdn is null. Tried again from the read when another
 * writer came first (the SIM, or a later record taking the number meanwhile).
 */
const applyNumberChange = async (table: SimTable, change: SourcedChange, nowMs: number): Promise<SourcedOutcome> => {
  const number = change.fields.msisdn!;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    const sim = await readSim(table, change.simId);
    if (!sim) return { outcome: 'missing' };
    let effective = change;
    let check: ReturnType<typeof claimCheck> | undefined;
    if (number !== null) {
      const newer = isNewer(sim, change, 'msisdn');
      // The SIM holds the number after this record unless a later record of its own set its
      // msisdn (a repeat of its latest record still holds it).
      const stored = sim[timeOf('msisdn')] as number | undefined;
      const claim = await claimMsisdnAt(table, sim, number, change.sourceMs, stored === undefined || stored <= change.sourceMs);
      if (claim.won && claim.formerHolder) await dropNumber(table, claim.formerHolder.simId, number, nowMs);
      if (newer && claim.won) check = claimCheck(table.tableName, number, sim.id, change.sourceMs);
      else if (newer) effective = { ...change, fields: { ...change.fields, msisdn: null } };
    }
    const outcome = await readWrite(table, sim, effective, nowMs, check);
    if (outcome && outcome !== 'claim-lost') return outcome;
  }
  throw new TransientFailure(`SIM ${change.simId} kept changing under a feed record; it is tried again`);
};

/**
 * Takes a number away from the SIM that held it until a later record named it for another SIM:
 * its msisdn becomes null (a change of value: updated_at moves, its list positions and events
 * follow), its `src_msisdn` stays (its own later records still apply). Nothing when it no
 * longer carries the number.
 */
export const dropNumber = async (table: SimTable, simId: number, msisdn: string, nowMs: number): Promise<void> => {
  const digits = msisdnDigits(msisdn);
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    const sim = await readSim(table, simId);
    if (!sim?.msisdn || msisdnDigits(sim.msisdn) !== digits) return;
    if ((await changeSimFields(table, sim, { msisdn: null }, nowMs)).written) return;
  }
  throw new TransientFailure(`SIM ${simId} kept changing while its number ${digits} went to another SIM; it is tried again`);
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
      const figures = ['data_used_mb', 'data_overage_mb', 'overage_cost'].map((attribute) => `${name(attribute)} <> ${value(usage[attribute as keyof Usage])}`);
      return `(${[...figures, `${name('usage_month')} <> ${value(usage.month)}`].join(' OR ')})`;
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
  // Each clause stands alone in an AND (parenthesised where it holds an OR); DynamoDB refuses
  // parentheses around a single clause ("redundant parentheses").
  const anyDifferent = different.length === 1 ? different[0]! : `(${different.join(' OR ')})`;
  return new UpdateCommand({
    TableName: tableName,
    Key: key.sim(change.simId),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: [`attribute_exists(${name('PK')})`, ...owner, ...newer, anyDifferent].join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
};

/**
 * The write of a record decided from the SIM as read: the newer fields (none: stale, nothing
 * written), their values when any differs (with updated_at and new positions) or else their
 * times only; conditional on the times, owner and update time read, and with `check` (a
 * number's claim, claimCheck) in the same transaction. Undefined when another writer came first
 * (read again); `claim-lost` when a later record took the number meanwhile (claim again).
 */
const readWrite = async (
  table: SimTable,
  sim: SimItem & Record<string, unknown>,
  change: SourcedChange,
  nowMs: number,
  check?: ReturnType<typeof claimCheck>,
): Promise<SourcedOutcome | 'claim-lost' | undefined> => {
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
  const update = {
    TableName: table.tableName,
    Key: key.sim(sim.id),
    UpdateExpression: `SET ${sets.join(', ')}`,
    ConditionExpression: [`attribute_exists(${name('PK')})`, ...unchangedSince].join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  const written = check && changing.includes('msisdn') ? await writeWithClaim(table, check, { Update: update }) : await sendUnlessConditionFails(table.db, new UpdateCommand(update));
  if (written !== true) return written === 'claim-lost' ? 'claim-lost' : undefined;
  const before = sim.msisdn ? msisdnDigits(sim.msisdn) : '';
  if (changing.includes('msisdn') && before && before !== (next.msisdn ? msisdnDigits(next.msisdn) : '')) await releaseMsisdnAlone(table, sim.msisdn!, sim.id);
  if (changing.includes('customer')) await putSimIccid(table, next);
  return { outcome: changing.length > 0 ? 'applied' : 'unchanged', sim: next };
};

/**
 * One SIM write (an Update or a Put) in a transaction with its number's claim check: true when
 * written, `claim-lost` when the claim is no longer the writer's, false when the SIM's own
 * condition failed or another transaction was in the way (the caller reads again).
 */
const writeWithClaim = async (table: SimTable, check: ReturnType<typeof claimCheck>, write: Record<string, unknown>): Promise<true | false | 'claim-lost'> => {
  try {
    await table.db.send(new TransactWriteCommand({ TransactItems: [check, write] as never }));
    return true;
  } catch (error) {
    if (!isTransactionCanceled(error)) throw error;
    const [claim, own] = cancellationCodes(error);
    if (claim === 'ConditionalCheckFailed') return 'claim-lost';
    if (own === 'ConditionalCheckFailed' || claim === 'TransactionConflict' || own === 'TransactionConflict') return false;
    throw error;
  }
};

/**
 * What createSourcedSim did: made it; found this SIM there already (`exists`: a retried record);
 * found its ICCID another SIM's (`iccid-taken`) or its id another ICCID's SIM (`id-taken`).
 */
export type CreateOutcome = 'created' | 'exists' | 'iccid-taken' | 'id-taken';

/**
 * Creates a SIM a sourced record describes (the operator feed's `sim` record for an unknown
 * id), with the time position taken for it beforehand (`listing`: reservePositions for a whole
 * message at once): its ICCID item first (refused when the ICCID is another SIM's), its number
 * registered in the number's claim (claimMsisdnAt: a later record that named the number keeps
 * it, and the new SIM's msisdn is null; when this record is the latest, the former holder loses
 * the number), then the SIM item if none has its id, with `src_<field>` at the record's time for
 * every field the record carried (in one transaction with the claim check when it has a
 * number). `exists` when this SIM is there already (a retried record): the caller then applies
 * the record as a change.
 */
export const createSourcedSim = async (
  table: SimTable,
  given: SimItem,
  carriedFields: readonly SourcedField[],
  sourceMs: number,
  nowMs: number,
  listing: ListingAttributes,
): Promise<CreateOutcome> => {
  let mappingIsNew = false;
  try {
    const put = await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: simIccidItem(given),
        ConditionExpression: 'attribute_not_exists(PK) OR sim_id = :id',
        ExpressionAttributeValues: { ':id': given.id },
        ReturnValues: 'ALL_OLD',
      }),
    );
    mappingIsNew = put.Attributes === undefined;
  } catch (error) {
    if (isConditionFailure(error)) return 'iccid-taken';
    throw error;
  }
  const times = Object.fromEntries(carriedFields.map((field) => [timeOf(field), sourceMs]));
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    let sim = given;
    let check: ReturnType<typeof claimCheck> | undefined;
    if (given.msisdn) {
      const claim = await claimMsisdnAt(table, given, given.msisdn, sourceMs, true);
      if (claim.won && claim.formerHolder) await dropNumber(table, claim.formerHolder.simId, given.msisdn, nowMs);
      if (claim.won) check = claimCheck(table.tableName, given.msisdn, given.id, sourceMs);
      else sim = { ...given, msisdn: null };
    }
    const put = { TableName: table.tableName, Item: { ...sim, ...listing, ...times }, ConditionExpression: 'attribute_not_exists(PK)' };
    const written = check ? await writeWithClaim(table, check, { Put: put }) : await sendUnlessConditionFails(table.db, new PutCommand(put));
    if (written === 'claim-lost') continue;
    if (written) return 'created';
    // The id is taken: by this SIM (a retried record) or by another writer's SIM of another ICCID.
    const existing = await readSim(table, given.id);
    if (!existing) continue;
    if (existing.iccid === given.iccid) return 'exists';
    if (mappingIsNew) {
      await sendUnlessConditionFails(
        table.db,
        new DeleteCommand({ TableName: table.tableName, Key: key.simIdByIccid(given.iccid), ConditionExpression: 'sim_id = :id', ExpressionAttributeValues: { ':id': given.id } }),
      );
    }
    return 'id-taken';
  }
  throw new TransientFailure(`SIM ${given.id} could not be created: its number kept changing hands; it is tried again`);
};
