import type { SimItem } from '../db/items';
import type { GroupDirectory } from '../groups/directory';
import { formatDecimal, formatGbp, megabytes, pounds, toHundredths } from '../vocabulary/amounts';
import type { SimObject } from './sim-schema';

/** The SIM object: the type of its schema in ./sim-schema.ts (SPEC.md, "SIM object"). */
export type { SimObject } from './sim-schema';

/**
 * An ISO-8601 date-time in UTC with an explicit "+00:00" offset, to the second, with
 * milliseconds only when there are any: 1763632800000 → "2026-11-20T10:00:00+00:00".
 */
export const isoWithOffset = (epochMs: number): string =>
  new Date(epochMs).toISOString().replace(/\.000Z$/, 'Z').replace(/Z$/, '+00:00');

/** Whether a SIM is in the scope of a key's customer: owned by it or by any descendant. */
export const simInScope = (sim: Pick<SimItem, 'customer_path'>, scopeCustomerId: string): boolean =>
  Array.isArray(sim.customer_path) && sim.customer_path.includes(scopeCustomerId);

/**
 * A stored SIM as the API shows it to a key of `scopeCustomerId`'s group: usage in MB with two
 * decimals, costs as GBP with the pound sign and total_cost = base + overage exactly (in
 * pence); `group` null for the key's own customer's SIMs and the owning sub-customer's name
 * otherwise; data_bundle only for a SIM on a bundle, MB as two-decimal strings and costs as
 * GBP; updated_at in UTC with "+00:00". The group's directory, when given, says the owner's name
 * and the bundle's figures and pool usage as they are now (shared/groups/directory.ts); without
 * it (or for a name or bundle it does not hold) the copies on the SIM item answer.
 */
export const simObject = (sim: SimItem, scopeCustomerId: string, directory?: GroupDirectory): SimObject => {
  const customerName = directory?.customers.get(sim.customer_id)?.name ?? sim.customer_name;
  const bundleId = sim.data_bundle?.id;
  const figures = bundleId === undefined ? undefined : { ...sim.data_bundle!, ...directory?.bundles.get(bundleId) };
  const poolUsed = bundleId === undefined ? undefined : directory?.poolUsed.get(bundleId);
  return {
  id: sim.id,
  iccid: sim.iccid,
  msisdn: sim.msisdn ?? null,
  // The seed loader and the writers keep these within the spec's values.
  status: sim.status as SimObject['status'],
  connection_status: sim.connection_status as SimObject['connection_status'],
  customer_name: customerName,
  group: sim.customer_id === scopeCustomerId ? null : customerName,
  tariff_name: sim.tariff_name ?? null,
  usage: { data_used_mb: megabytes(sim.data_used_mb), data_overage_mb: megabytes(sim.data_overage_mb) },
  cost: {
    currency: 'GBP',
    base_cost: pounds(sim.base_cost),
    overage_cost: pounds(sim.overage_cost),
    total_cost: formatGbp(toHundredths(sim.base_cost) + toHundredths(sim.overage_cost)),
  },
  data_bundle: figures
    ? {
        is_data_bundle: true,
        bundle_data_allowance_mb: megabytes(figures.allowance_mb),
        bundle_monthly_cost: pounds(figures.monthly_cost),
        per_sim_access_fee: pounds(figures.per_sim_access_fee),
        pool_used_mb: poolUsed === undefined ? megabytes(figures.pool_used_mb) : formatDecimal(poolUsed),
        pool_total_mb: megabytes(figures.allowance_mb),
      }
    : null,
  updated_at: typeof sim.updated_at_ms === 'number' ? isoWithOffset(sim.updated_at_ms) : sim.updated_at,
  };
};
