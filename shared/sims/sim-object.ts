import type { SimItem } from '../db/items';
import { formatGbp, megabytes, pounds, toHundredths } from './amounts';
import type { SimObject } from './sim-schema';

/** The SIM object and its data bundle: types of the schemas in ./sim-schema.ts (SPEC.md, "SIM object"). */
export type { DataBundleObject, SimObject } from './sim-schema';

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
 * GBP; updated_at in UTC with "+00:00".
 */
export const simObject = (sim: SimItem, scopeCustomerId: string): SimObject => ({
  id: sim.id,
  iccid: sim.iccid,
  msisdn: sim.msisdn ?? null,
  // The seed loader and the writers keep these within the spec's values.
  status: sim.status as SimObject['status'],
  connection_status: sim.connection_status as SimObject['connection_status'],
  customer_name: sim.customer_name,
  group: sim.customer_id === scopeCustomerId ? null : sim.customer_name,
  tariff_name: sim.tariff_name ?? null,
  usage: { data_used_mb: megabytes(sim.data_used_mb), data_overage_mb: megabytes(sim.data_overage_mb) },
  cost: {
    currency: 'GBP',
    base_cost: pounds(sim.base_cost),
    overage_cost: pounds(sim.overage_cost),
    total_cost: formatGbp(toHundredths(sim.base_cost) + toHundredths(sim.overage_cost)),
  },
  data_bundle: sim.data_bundle
    ? {
        is_data_bundle: true,
        bundle_data_allowance_mb: megabytes(sim.data_bundle.allowance_mb),
        bundle_monthly_cost: pounds(sim.data_bundle.monthly_cost),
        per_sim_access_fee: pounds(sim.data_bundle.per_sim_access_fee),
        pool_used_mb: megabytes(sim.data_bundle.pool_used_mb),
        pool_total_mb: megabytes(sim.data_bundle.allowance_mb),
      }
    : null,
  updated_at: typeof sim.updated_at_ms === 'number' ? isoWithOffset(sim.updated_at_ms) : sim.updated_at,
});
