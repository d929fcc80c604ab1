import { concurrencyLimit } from '../async/limit';
import { batchGetItems } from '../db/batch-get';
import type { CustomerItem, SimItem } from '../db/items';
import { gsi1, key } from '../db/keys';
import { errorReason, isOutage } from '../errors/outage';
import { readGroupDirectory, type GroupDirectory } from '../groups/directory';
import { reservePositions, type ListingAttributes } from '../sim-lists/positions';
import { isoWithOffset } from '../sims/sim-object';
import { readSimByIccid } from '../sims/sim-by-iccid';
import { putSimIccid } from '../sims/sim-writes';
import { applySourcedChange, createSourcedSim, fastListingPath, type Owner, type SourcedChange, type SourcedField, type SourcedOutcome } from '../sims/sourced-writes';
import { settleAfterStatusLines } from '../sim-actions/settle-from-status';
import { normaliseDecimal } from '../vocabulary/decimal';
import type { EntityOutcome, FeedTable } from './customer-records';
import { forgetHeldLines, heldLinesOf, holdLines, iccidsWithHeldLines } from './held';
import { readFeedLine, type FeedRecordOf } from './records';

/**
 * A message's `sim`, `sim_status` and `usage` records (issues #20 and #31): each names its SIM
 * (by id for `sim`, by ICCID for the others) and what it sets. A run of such lines is applied in
 * four steps:
 *
 * 1. Read what the lines name, in batches (BatchGetItem, 100 keys a call, in parallel): the
 *    ICCID items, the customers, the SIMs of `sim` records, the groups' directories.
 * 2. Plan every line in line order: a refusal (a reference that does not exist, an ICCID that is
 *    another SIM's ...), a new SIM (a `sim` record with an unknown id and everything a SIM needs),
 *    a change of a known SIM (or of one created by an earlier line), or a line held for a SIM the
 *    service has not seen yet (./held.ts).
 * 3. Take the time positions of every new SIM and every change with a fast write in one call,
 *    and keep the held lines (BatchWriteItem).
 * 4. Apply the lines of each SIM in line order, up to 48 SIMs at once in this container. A line
 *    that fails for any reason but an outage is refused alone with that reason; an outage
 *    (shared/errors/outage.ts) fails the message, which comes back (every line is decided by its
 *    source time, so applying it again changes nothing more).
 * 5. Release the lines held for the SIMs the run created (their ICCIDs' marks, 100 a call), and
 *    for the ICCIDs it held whose SIM exists now (created by another message meanwhile: each
 *    side writes first and looks after, so one of the two always finds the other).
 *
 * Lines of different SIMs do not depend on one another's order: a number goes to the latest
 * record that names it, whichever arrives first (shared/sims/sourced-writes.ts).
 */

/** A SIM record with its line number (and, for a line an earlier message held, that message). */
export type SimLine = {
  line: number;
  record: FeedRecordOf<'sim'> | FeedRecordOf<'sim_status'> | FeedRecordOf<'usage'>;
  /** The line's text as received (kept when the line is held). */
  text: string;
};

/** How a SIM line ended: as an entity line does, or held for a SIM not seen yet. */
export type SimLineOutcome = EntityOutcome | { outcome: 'held' };

/** A line an earlier message held, applied (or refused) now that its SIM arrived. */
export interface ReleasedLine {
  batchId: string;
  line: number;
  text: string;
  outcome: SimLineOutcome;
}

/** What a run of SIM lines did. */
export interface SimRunResult {
  outcomes: Map<number, SimLineOutcome>;
  released: ReleasedLine[];
}

/** Where a run's lines came from: its message (batch id, receipt time) and the clock. */
export interface RunContext {
  batchId: string;
  receivedAt: string;
  nowMs: number;
}

/** What the feed knows of a SIM before it writes: id, ICCID, owner and path. */
interface KnownSim extends Owner {
  id: number;
  iccid: string;
}

/** One planned step of a SIM's lines. */
type Step =
  | { kind: 'create'; line: number; sim: SimItem; carried: SourcedField[]; sourceMs: number }
  | { kind: 'change'; line: number; change: SourcedChange }
  | { kind: 'hold'; line: number; iccid: string; sourceMs: number; text: string };

/**
 * SIMs written at once in this container (across the messages of a batch): about the SDK's
 * sockets (50), so that throughput stays and memory does not grow with the batch.
 */
const simWrites = concurrencyLimit(48);

const ownerOfCustomer = (customer: CustomerItem): Owner => ({ customer_id: customer.id, customer_name: customer.name, customer_path: [...customer.path] });
const knownOf = (sim: Pick<SimItem, 'id' | 'iccid' | 'customer_id' | 'customer_name' | 'customer_path'>): KnownSim => ({
  id: sim.id,
  iccid: sim.iccid,
  customer_id: sim.customer_id,
  customer_name: sim.customer_name,
  customer_path: [...sim.customer_path],
});

/** What step 1 reads. */
interface RunReads {
  byIccid: Map<string, KnownSim>;
  customers: Map<string, CustomerItem>;
  existing: Map<number, SimItem>;
  directories: Map<string, GroupDirectory | undefined>;
}

/**
 * Step 1: the ICCID items of every line (a SIM of an earlier version without one, named by a
 * line that needs the SIM to exist, is found through GSI1 and given one), the customers and
 * SIMs `sim` records name, and the directories of the groups whose bundles they name.
 */
const readRun = async (table: FeedTable, lines: readonly SimLine[]): Promise<RunReads> => {
  const simRecords = lines.flatMap(({ record }) => (record.type === 'sim' ? [record] : []));
  const [iccidItems, customerItems, simItems] = await Promise.all([
    batchGetItems(table.db, table.tableName, lines.map(({ record }) => key.simIdByIccid(record.iccid))),
    batchGetItems(table.db, table.tableName, simRecords.flatMap((record) => (record.customer === undefined ? [] : [key.customer(record.customer)])), { consistentRead: true }),
    batchGetItems(table.db, table.tableName, simRecords.map((record) => key.sim(record.id)), { consistentRead: true }),
  ]);
  const byIccid = new Map<string, KnownSim>();
  for (const item of iccidItems) {
    if (item.type !== 'sim_iccid') continue;
    const iccid = String(item.PK).slice(String(key.simIdByIccid('').PK).length);
    byIccid.set(iccid, { id: Number(item.sim_id), iccid, customer_id: String(item.customer_id), customer_name: '', customer_path: (item.customer_path as string[]) ?? [] });
  }
  const customers = new Map((customerItems as unknown as CustomerItem[]).filter((item) => item.type === 'customer').map((item) => [item.id, item]));
  const existing = new Map((simItems as unknown as SimItem[]).filter((item) => item.type === 'sim').map((item) => [item.id, item]));
  // A SIM of an earlier version has no ICCID item: look it up through GSI1 for lines that need
  // an existing SIM (not for a `sim` record of a new id, which creates one).
  const needsExisting = new Set(lines.flatMap(({ record }) => (record.type !== 'sim' || existing.has(record.id) ? [record.iccid] : [])));
  await Promise.all(
    [...needsExisting]
      .filter((iccid) => !byIccid.has(iccid))
      .map(async (iccid) => {
        const sim = await readSimByIccid(table, iccid);
        if (!sim) return;
        byIccid.set(iccid, knownOf(sim));
        await putSimIccid(table, sim);
      }),
  );
  const groups = new Set<string>();
  for (const record of simRecords) {
    if (record.data_bundle === undefined || record.data_bundle === null) continue;
    const group = (record.customer === undefined ? undefined : customers.get(record.customer)?.path[0]) ?? existing.get(record.id)?.customer_path[0] ?? byIccid.get(record.iccid)?.customer_path[0];
    if (group !== undefined) groups.add(group);
  }
  const directories = new Map(await Promise.all([...groups].map(async (group) => [group, await readGroupDirectory(table, group, true)] as const)));
  return { byIccid, customers, existing, directories };
};

/** A refusal of a planned line, or its step. */
type Planned = { reject: string } | Step;

/**
 * Step 2: every line in line order, against what step 1 read and what earlier lines of the run
 * will create.
 */
const planRun = (lines: readonly SimLine[], reads: RunReads, nowMs: number): Map<number, Planned> => {
  const plans = new Map<number, Planned>();
  const byIccid = new Map(reads.byIccid);
  const known = new Map<number, KnownSim>();
  for (const sim of byIccid.values()) known.set(sim.id, sim);
  for (const sim of reads.existing.values()) known.set(sim.id, knownOf(sim));

  for (const { line, record, text } of lines) {
    if (record.type !== 'sim') {
      const sim = byIccid.get(record.iccid);
      if (!sim) {
        plans.set(line, { kind: 'hold', line, iccid: record.iccid, sourceMs: record.sourceMs, text });
        continue;
      }
      plans.set(line, {
        kind: 'change',
        line,
        change: {
          simId: sim.id,
          iccid: sim.iccid,
          sourceMs: record.sourceMs,
          fields: record.type === 'sim_status' ? { status: record.status, connection_status: record.connection_status } : {},
          ...(record.type === 'usage'
            ? { usage: { month: record.month, data_used_mb: normaliseDecimal(record.data_used_mb), data_overage_mb: normaliseDecimal(record.data_overage_mb), overage_cost: normaliseDecimal(record.overage_cost) } }
            : {}),
          expectedOwner: sim,
        },
      });
      continue;
    }
    plans.set(line, planSimRecord(record, text, line, { byIccid, known, reads, nowMs }));
  }
  return plans;
};

/** A `sim` record's plan, recording a new SIM in `byIccid` and `known` for the lines after it. */
const planSimRecord = (
  record: FeedRecordOf<'sim'>,
  text: string,
  line: number,
  state: { byIccid: Map<string, KnownSim>; known: Map<number, KnownSim>; reads: RunReads; nowMs: number },
): Planned => {
  const { byIccid, known, reads } = state;
  const holder = byIccid.get(record.iccid);
  if (holder && holder.id !== record.id) return { reject: `ICCID ${record.iccid} belongs to SIM ${holder.id}` };
  const current = known.get(record.id);
  if (current && current.iccid !== record.iccid) return { reject: `SIM ${record.id} has ICCID ${current.iccid}: an ICCID never changes` };
  const customer = record.customer === undefined ? undefined : reads.customers.get(record.customer);
  if (record.customer !== undefined && !customer) return { reject: `customer ${record.customer} does not exist` };
  if (!current && (!customer || record.status === undefined || record.connection_status === undefined)) {
    // Not enough to make a SIM of: kept until a SIM with this ICCID arrives.
    return { kind: 'hold', line, iccid: record.iccid, sourceMs: record.sourceMs, text };
  }
  if (customer && current && customer.path[0] !== current.customer_path[0] && record.data_bundle === undefined) {
    // Its bundle (if any) is of its old group: the record must say what it is in the new one.
    return { reject: `SIM ${record.id} moves to customer group ${customer.path[0]}: the record needs data_bundle (null or a bundle of ${customer.path[0]})` };
  }
  const owner = customer ? ownerOfCustomer(customer) : current!;
  let bundle: SimItem['data_bundle'] | undefined;
  if (record.data_bundle === null) bundle = null;
  else if (record.data_bundle !== undefined) {
    const group = owner.customer_path[0]!;
    const figures = reads.directories.get(group)?.bundles.get(record.data_bundle);
    if (!figures) return { reject: `data bundle ${record.data_bundle} does not exist in customer group ${group}` };
    bundle = { id: record.data_bundle, allowance_mb: figures.allowance_mb, monthly_cost: figures.monthly_cost, per_sim_access_fee: figures.per_sim_access_fee, pool_used_mb: '0.00' };
  }
  const fields: SourcedChange['fields'] = {
    ...(record.status !== undefined ? { status: record.status } : {}),
    ...(record.connection_status !== undefined ? { connection_status: record.connection_status } : {}),
    ...(record.msisdn !== undefined ? { msisdn: record.msisdn } : {}),
    ...(record.tariff_name !== undefined ? { tariff_name: record.tariff_name } : {}),
    ...(record.base_cost !== undefined ? { base_cost: normaliseDecimal(record.base_cost) } : {}),
    ...(bundle !== undefined ? { data_bundle: bundle } : {}),
    ...(customer ? { customer: ownerOfCustomer(customer) } : {}),
  };
  if (current) return { kind: 'change', line, change: { simId: record.id, iccid: record.iccid, sourceMs: record.sourceMs, fields, expectedOwner: current } };
  const created: KnownSim = { id: record.id, iccid: record.iccid, ...owner };
  byIccid.set(record.iccid, created);
  known.set(record.id, created);
  return { kind: 'create', line, sim: newSimItem(record, owner, bundle ?? null, state.nowMs), carried: Object.keys(fields) as SourcedField[], sourceMs: record.sourceMs };
};

/** The SIM item of a `sim` record for a new SIM (usage 0.00 until its first usage record). */
const newSimItem = (record: FeedRecordOf<'sim'>, owner: Owner, bundle: SimItem['data_bundle'], nowMs: number): SimItem => ({
  ...key.sim(record.id),
  ...gsi1.simByIccid(record.iccid),
  type: 'sim',
  id: record.id,
  iccid: record.iccid,
  msisdn: record.msisdn ?? null,
  status: record.status!,
  connection_status: record.connection_status!,
  ...owner,
  tariff_name: record.tariff_name ?? null,
  data_used_mb: '0.00',
  data_overage_mb: '0.00',
  base_cost: normaliseDecimal(record.base_cost ?? '0'),
  overage_cost: '0.00',
  data_bundle: bundle,
  updated_at: isoWithOffset(nowMs),
  updated_at_ms: nowMs,
});

/** The steps of a run that write a SIM, grouped by SIM, each group in line order. */
const groupSteps = (steps: readonly Exclude<Step, { kind: 'hold' }>[]): Exclude<Step, { kind: 'hold' }>[][] => {
  const groups = new Map<number, Exclude<Step, { kind: 'hold' }>[]>();
  for (const step of steps) {
    const simId = step.kind === 'create' ? step.sim.id : step.change.simId;
    groups.set(simId, [...(groups.get(simId) ?? []), step]);
  }
  return [...groups.values()];
};

/**
 * Applies a run of SIM lines (the five steps above). `releasing`: the run applies lines an
 * earlier message held, now that their SIM exists; it neither holds them again nor releases.
 */
export const applySimRun = async (table: FeedTable, lines: readonly SimLine[], context: RunContext, releasing = false): Promise<SimRunResult> => {
  const outcomes = new Map<number, SimLineOutcome>();
  const reject = (line: number, reason: string) => outcomes.set(line, { outcome: 'rejected', reason });

  const reads = await readRun(table, lines);
  const plans = planRun(lines, reads, context.nowMs);
  const writes: Exclude<Step, { kind: 'hold' }>[] = [];
  const holds: Extract<Step, { kind: 'hold' }>[] = [];
  for (const [line, plan] of plans) {
    if ('reject' in plan) reject(line, plan.reject);
    else if (plan.kind === 'hold') holds.push(plan);
    else writes.push(plan);
  }
  // Step 3: one position reservation for every new SIM and every change with a fast write; the held lines kept.
  const positioned = writes.flatMap((step): { step: Step; path: string[] }[] => {
    const path = step.kind === 'create' ? step.sim.customer_path : fastListingPath(step.change);
    return path ? [{ step, path }] : [];
  });
  const [listings] = await Promise.all([
    reservePositions(table, positioned.map(({ path }) => ({ customer_path: path, updated_at_ms: context.nowMs })), context.nowMs),
    releasing ? undefined : holdLines(table, holds.map((step) => ({ iccid: step.iccid, batch_id: context.batchId, received_at: context.receivedAt, line: step.line, source_ms: step.sourceMs, text: step.text }))),
  ]);
  for (const step of holds) outcomes.set(step.line, { outcome: 'held' });
  const listingOf = new Map<Step, ListingAttributes>(positioned.map(({ step }, index) => [step, listings[index]!]));

  // Step 4: the lines of each SIM in order, SIMs at once.
  const created: string[] = [];
  const runStep = async (step: Exclude<Step, { kind: 'hold' }>): Promise<void> => {
    try {
      if (step.kind === 'create') {
        const result = await createSourcedSim(table, step.sim, step.carried, step.sourceMs, context.nowMs, listingOf.get(step)!);
        if (result === 'iccid-taken') return void reject(step.line, `ICCID ${step.sim.iccid} belongs to another SIM`);
        if (result === 'id-taken') return void reject(step.line, `SIM ${step.sim.id} has another ICCID: an ICCID never changes`);
        created.push(step.sim.iccid);
        if (result === 'created') return void outcomes.set(step.line, { outcome: 'applied' });
        // This very SIM was there already (a retried message): the record as a change.
        const { customer_id, customer_name, customer_path } = step.sim;
        const fields = Object.fromEntries(step.carried.map((field) => [field, field === 'customer' ? { customer_id, customer_name, customer_path } : step.sim[field as keyof SimItem]]));
        outcomes.set(step.line, outcomeOf(await applySourcedChange(table, { simId: step.sim.id, iccid: step.sim.iccid, sourceMs: step.sourceMs, fields }, context.nowMs)));
        return;
      }
      outcomes.set(step.line, outcomeOf(await applySourcedChange(table, step.change, context.nowMs, listingOf.get(step))));
    } catch (error) {
      if (isOutage(error)) throw error;
      reject(step.line, `could not be applied: ${errorReason(error)}`);
    }
  };
  await Promise.all(
    groupSteps(writes).map((group) =>
      simWrites(async () => {
        for (const step of group) await runStep(step);
      }),
    ),
  );
  // The SIM actions these status lines may confirm or supersede (issue #33).
  const statusLines = writes.filter((step) => outcomes.get(step.line)?.outcome !== 'rejected' && (step.kind === 'create' ? false : step.change.fields.status !== undefined));
  await settleAfterStatusLines(table, statusLines.map((step) => (step as Extract<Step, { kind: 'change' }>).change.simId), context.nowMs);
  if (releasing) return { outcomes, released: [] };

  // Step 5: lines held for the SIMs created here, and for held ICCIDs whose SIM exists now.
  const heldIccids = [...new Set(holds.map((step) => step.iccid))];
  const [marked, knownNow] = await Promise.all([
    iccidsWithHeldLines(table, created),
    batchGetItems(table.db, table.tableName, heldIccids.map((iccid) => key.simIdByIccid(iccid)), { consistentRead: true }),
  ]);
  for (const item of knownNow) if (item.type === 'sim_iccid') marked.add(String(item.PK).slice(String(key.simIdByIccid('').PK).length));
  const released = (await Promise.all([...marked].map((iccid) => releaseHeldLines(table, iccid, context)))).flat();
  return { outcomes, released };
};

/** A sourced write's outcome as a line's. */
const outcomeOf = (result: SourcedOutcome): SimLineOutcome => {
  if (result.outcome === 'refused') return { outcome: 'rejected', reason: result.reason };
  if (result.outcome === 'missing') return { outcome: 'rejected', reason: 'the SIM does not exist any more' };
  return { outcome: result.outcome };
};

/**
 * Applies the lines held for an ICCID whose SIM now exists, oldest source time first, by the
 * same rules as any line (a run of their own), and forgets each once it is decided.
 */
const releaseHeldLines = async (table: FeedTable, iccid: string, context: RunContext): Promise<ReleasedLine[]> => {
  const held = await heldLinesOf(table, iccid, context.nowMs);
  const lines: (SimLine & { from: (typeof held)[number] })[] = [];
  const released: ReleasedLine[] = [];
  held.forEach((entry, index) => {
    const read = readFeedLine(entry.text, context.nowMs);
    if ('reason' in read || (read.record.type !== 'sim' && read.record.type !== 'sim_status' && read.record.type !== 'usage')) {
      released.push({ batchId: entry.batch_id, line: entry.line, text: entry.text, outcome: { outcome: 'rejected', reason: 'reason' in read ? read.reason : 'not a SIM record' } });
      return;
    }
    lines.push({ line: index + 1, record: read.record, text: entry.text, from: entry });
  });
  const result = lines.length > 0 ? await applySimRun(table, lines, context, true) : { outcomes: new Map<number, SimLineOutcome>() };
  const stillHeld = new Set(lines.filter((line) => result.outcomes.get(line.line)?.outcome === 'held').map((line) => line.from));
  for (const line of lines) {
    if (stillHeld.has(line.from)) continue;
    released.push({ batchId: line.from.batch_id, line: line.from.line, text: line.text, outcome: result.outcomes.get(line.line) ?? { outcome: 'rejected', reason: 'not applied' } });
  }
  await forgetHeldLines(table, iccid, held.filter((entry) => !stillHeld.has(entry)), stillHeld.size > 0);
  return released;
};
