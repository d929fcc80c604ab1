import { batchGetItems } from '../db/batch-get';
import type { CustomerItem, SimItem } from '../db/items';
import { gsi1Partition, key } from '../db/keys';
import { readGroupDirectory, type GroupDirectory } from '../groups/directory';
import { applySourcedChanges, createSim, type Owner, type SourcedChange, type SourcedField } from '../sims/sourced-writes';
import { readSimByIccid } from '../sims/sim-by-iccid';
import { MsisdnInUse, putSimIccid } from '../sims/sim-writes';
import { isoWithOffset } from '../sims/sim-object';
import { normaliseDecimal } from '../vocabulary/decimal';
import type { EntityOutcome, FeedTable } from './customer-records';
import type { FeedRecordOf } from './records';

/** A SIM record of a message, with its line number. */
export type SimLine = { line: number; record: FeedRecordOf<'sim'> | FeedRecordOf<'sim_status'> | FeedRecordOf<'usage'> };

/** What the feed knows of a SIM before it writes: id, ICCID, owner and path (its ICCID item, or the SIM item). */
interface KnownSim extends Owner {
  id: number;
  iccid: string;
}

const ownerOfCustomer = (customer: CustomerItem): Owner => ({ customer_id: customer.id, customer_name: customer.name, customer_path: [...customer.path] });

/** SIMs by ICCID: their ICCID items (100 a call), and for an ICCID without one (a SIM of an earlier version) the SIM found through GSI1, whose item is written then. */
const simsByIccid = async (table: FeedTable, iccids: readonly string[]): Promise<Map<string, KnownSim>> => {
  const known = new Map<string, KnownSim>();
  const unique = [...new Set(iccids)];
  const batches: string[][] = [];
  for (let start = 0; start < unique.length; start += 100) batches.push(unique.slice(start, start + 100));
  const found = (await Promise.all(batches.map((batch) => batchGetItems(table.db, table.tableName, batch.map(key.simIdByIccid))))).flat();
  for (const item of found) {
    if (item.type !== 'sim_iccid') continue;
    known.set(String(item.PK).slice('SIMICCID#'.length), {
      id: Number(item.sim_id),
      iccid: String(item.PK).slice('SIMICCID#'.length),
      customer_id: String(item.customer_id),
      customer_name: '',
      customer_path: (item.customer_path as string[]) ?? [],
    });
  }
  await Promise.all(
    unique
      .filter((iccid) => !known.has(iccid))
      .map(async (iccid) => {
        const sim = await readSimByIccid(table, iccid);
        if (!sim) return;
        known.set(iccid, { id: sim.id, iccid, customer_id: sim.customer_id, customer_name: sim.customer_name, customer_path: sim.customer_path });
        await putSimIccid(table, sim);
      }),
  );
  return known;
};

/**
 * Applies a message's `sim`, `sim_status` and `usage` records (issue #20): each names its SIM
 * (by id for `sim`, by ICCID for the others) and what it sets; references are checked (the SIM,
 * the owner, the bundle, which must be of the owner's group), new SIMs are created, and every
 * change goes through the sourced SIM write path (shared/sims/sourced-writes.ts): one
 * conditional write per record in order, a read and a conditional write otherwise.
 */
export const applySimRecords = async (table: FeedTable, lines: readonly SimLine[], nowMs: number): Promise<Map<number, EntityOutcome>> => {
  const outcomes = new Map<number, EntityOutcome>();
  const reject = (line: number, reason: string) => outcomes.set(line, { outcome: 'rejected', reason });

  const iccids = lines.map(({ record }) => record.iccid);
  const byIccid = await simsByIccid(table, iccids);
  const simRecords = lines.filter((entry): entry is { line: number; record: FeedRecordOf<'sim'> } => entry.record.type === 'sim');
  const customerIds = [...new Set(simRecords.flatMap(({ record }) => (record.customer ? [record.customer] : [])))];
  const customers = new Map(
    ((await batchGetItems(table.db, table.tableName, customerIds.map(key.customer), { consistentRead: true })) as unknown as CustomerItem[])
      .filter((item) => item.type === 'customer')
      .map((item) => [item.id, item]),
  );
  const existing = new Map(
    ((await batchGetItems(table.db, table.tableName, [...new Set(simRecords.map(({ record }) => record.id))].map(key.sim), { consistentRead: true })) as unknown as SimItem[])
      .filter((item) => item.type === 'sim')
      .map((item) => [item.id, item]),
  );
  const directories = new Map<string, Promise<GroupDirectory | undefined>>();
  const directoryOf = (groupId: string) => {
    if (!directories.has(groupId)) directories.set(groupId, readGroupDirectory(table, groupId, true));
    return directories.get(groupId)!;
  };

  // The SIM each line is about, as the feed knows it before writing (created ones added below).
  const known = new Map<number, KnownSim>();
  for (const sim of byIccid.values()) known.set(sim.id, sim);
  for (const sim of existing.values()) known.set(sim.id, { id: sim.id, iccid: sim.iccid, customer_id: sim.customer_id, customer_name: sim.customer_name, customer_path: sim.customer_path });

  const changes: { line: number; change: SourcedChange }[] = [];
  for (const { line, record } of lines) {
    if (record.type !== 'sim') {
      const sim = byIccid.get(record.iccid);
      if (!sim) {
        reject(line, `no SIM with ICCID ${record.iccid}`);
        continue;
      }
      changes.push({
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
    // A `sim` record: its ICCID is its own, its owner and bundle exist, the bundle is of the owner's group.
    const holder = byIccid.get(record.iccid);
    if (holder && holder.id !== record.id) {
      reject(line, `ICCID ${record.iccid} belongs to SIM ${holder.id}`);
      continue;
    }
    const current = known.get(record.id);
    if (current && current.iccid !== record.iccid) {
      reject(line, `SIM ${record.id} has ICCID ${current.iccid}: an ICCID never changes`);
      continue;
    }
    const customer = record.customer === undefined ? undefined : customers.get(record.customer);
    if (record.customer !== undefined && !customer) {
      reject(line, `customer ${record.customer} does not exist`);
      continue;
    }
    if (customer && current && customer.path[0] !== current.customer_path[0] && record.data_bundle === undefined) {
      // Its bundle (if any) is of its old group: the record must say what it is in the new one.
      reject(line, `SIM ${record.id} moves to customer group ${customer.path[0]}: the record needs data_bundle (null or a bundle of ${customer.path[0]})`);
      continue;
    }
    const owner = customer ? ownerOfCustomer(customer) : current;
    if (!owner) {
      reject(line, `SIM ${record.id} does not exist: a new SIM needs customer, status and connection_status`);
      continue;
    }
    let bundle: SimItem['data_bundle'] | undefined;
    if (record.data_bundle !== undefined) {
      if (record.data_bundle === null) bundle = null;
      else {
        const figures = (await directoryOf(owner.customer_path[0]!))?.bundles.get(record.data_bundle);
        if (!figures) {
          reject(line, `data bundle ${record.data_bundle} does not exist in customer group ${owner.customer_path[0]}`);
          continue;
        }
        bundle = { id: record.data_bundle, allowance_mb: figures.allowance_mb, monthly_cost: figures.monthly_cost, per_sim_access_fee: figures.per_sim_access_fee, pool_used_mb: '0.00' };
      }
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
    if (!current) {
      if (!customer || record.status === undefined || record.connection_status === undefined) {
        reject(line, `SIM ${record.id} does not exist: a new SIM needs customer, status and connection_status`);
        continue;
      }
      const created = await createNewSim(table, record, ownerOfCustomer(customer), bundle ?? null, fields, nowMs);
      if (created === 'iccid-taken') {
        reject(line, `ICCID ${record.iccid} belongs to another SIM`);
        continue;
      }
      if (created !== 'exists') {
        if (created instanceof MsisdnInUse) reject(line, `msisdn ${record.msisdn} is held by another SIM`);
        else outcomes.set(line, { outcome: 'applied' });
        if (!(created instanceof MsisdnInUse)) known.set(record.id, { id: record.id, iccid: record.iccid, ...ownerOfCustomer(customer) });
        continue;
      }
    }
    changes.push({ line, change: { simId: record.id, iccid: record.iccid, sourceMs: record.sourceMs, fields, ...(current ? { expectedOwner: current } : {}) } });
  }

  // One position reservation for the whole message; a SIM's records in line order.
  const results = await applySourcedChanges(table, changes.map(({ change }) => change), nowMs);
  changes.forEach(({ line }, index) => {
    const result = results[index]!;
    if (result.outcome === 'refused') reject(line, result.reason);
    else if (result.outcome === 'missing') reject(line, 'the SIM does not exist any more');
    else outcomes.set(line, { outcome: result.outcome });
  });
  return outcomes;
};

/** The SIM item of a `sim` record for a new SIM (usage 0.00 until its first usage record), created through the write path. */
const createNewSim = async (
  table: FeedTable,
  record: FeedRecordOf<'sim'>,
  owner: Owner,
  bundle: SimItem['data_bundle'],
  fields: SourcedChange['fields'],
  nowMs: number,
): Promise<Awaited<ReturnType<typeof createSim>> | MsisdnInUse> => {
  const sim: SimItem = {
    ...key.sim(record.id),
    GSI1PK: gsi1Partition.simByIccid(record.iccid),
    GSI1SK: 'SIM',
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
  };
  try {
    return await createSim(table, sim, Object.keys(fields) as SourcedField[], record.sourceMs, nowMs);
  } catch (error) {
    if (error instanceof MsisdnInUse) return error;
    throw error;
  }
};
