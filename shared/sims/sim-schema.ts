import * as v from 'valibot';
import { simStatuses } from '../vocabulary/fields';
import { maxPageSize } from './list-query';

/**
 * The SIM object, its data bundle and A1's list envelope as valibot schemas (SPEC.md
 * "Resources and their fields", docs/area-a.md): the one source of the SimObject and SimList
 * types the handlers return (./sim-object.ts, ./list-sims.ts import them as types only, so the
 * bundles do not carry this module) and of their JSON Schema in docs/openapi.json, which the
 * HTTP tests check every answer against. Also A2's path parameter, as docs: simIdFromPath
 * (./get-sim.ts) enforces it. A1's query parameters are a schema of their own, the one the list
 * validates with (./list-query.ts).
 */

const megabytes = (description: string) =>
  v.pipe(v.string(), v.regex(/^-?\d+\.\d{2}$/), v.description(`${description} Decimal string in MB, two decimal places.`));

const gbp = (description: string) =>
  v.pipe(v.string(), v.regex(/^-?£\d+\.\d{2}$/), v.description(`${description} GBP with the pound sign and two decimals, e.g. "£5.00".`));

/** A SIM status (SPEC.md, "SIM status"). */
export const simStatusSchema = v.pipe(v.picklist(simStatuses), v.description('Lifecycle status of the SIM.'));

/** The data_bundle object, present only for a SIM on a data-bundle tariff. */
export const dataBundleSchema = v.pipe(
  v.strictObject({
    is_data_bundle: v.pipe(v.literal(true), v.description('Always true.')),
    bundle_data_allowance_mb: megabytes('Total shared pool allowance.'),
    bundle_monthly_cost: gbp('Monthly cost of the shared bundle.'),
    per_sim_access_fee: gbp('Per-SIM access fee on top of the bundle cost.'),
    pool_used_mb: megabytes('Used across all SIMs of the pool this month.'),
    pool_total_mb: megabytes('Total pool allowance.'),
  }),
  v.description('Shared data bundle of the SIM.'),
);

/** The SIM object of A1 and A2, with the internal `id` first. */
export const simObjectSchema = v.pipe(
  v.strictObject({
    id: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Internal SIM id: the sim_id of GET /developer/api/sims/{sim_id}/.')),
    iccid: v.pipe(v.string(), v.regex(/^\d{1,20}$/), v.description('Unique SIM identifier, up to 20 digits.')),
    msisdn: v.pipe(v.nullable(v.string()), v.description('Mobile number assigned to the SIM; null when it has none.')),
    status: simStatusSchema,
    connection_status: v.pipe(v.picklist(['active', 'inactive']), v.description('Current network connection.')),
    customer_name: v.pipe(v.string(), v.description('Account name of the owning customer.')),
    group: v.pipe(
      v.nullable(v.string()),
      v.description("Sub-customer name when the SIM belongs to a sub-customer of the key's customer group; null for the key's own customer."),
    ),
    tariff_name: v.pipe(v.nullable(v.string()), v.description('Customer-facing tariff name.')),
    usage: v.strictObject({
      data_used_mb: megabytes('Month-to-date data used.'),
      data_overage_mb: megabytes('Month-to-date overage beyond the included allowance.'),
    }),
    cost: v.strictObject({
      currency: v.pipe(v.literal('GBP'), v.description('Always GBP.')),
      base_cost: gbp('Monthly base (subscriber rental) cost.'),
      overage_cost: gbp('Current month overage cost.'),
      total_cost: gbp('Base plus overage.'),
    }),
    data_bundle: v.pipe(v.nullable(dataBundleSchema), v.description('Non-null only when the SIM is on a data-bundle tariff.')),
    updated_at: v.pipe(v.string(), v.isoTimestamp(), v.description('Last update of the SIM record, in UTC with an explicit +00:00 offset.')),
  }),
  v.description('A SIM as Area A shows it.'),
);

/** A1's list envelope. */
export const simListSchema = v.pipe(
  v.strictObject({
    count: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('Total number of matching SIMs.')),
    page: v.pipe(v.number(), v.integer(), v.minValue(1), v.description('The page returned (echoes the request).')),
    page_size: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(maxPageSize), v.description('The page size (echoes the request).')),
    total_pages: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('ceil(count / page_size); 0 when nothing matches.')),
    results: v.pipe(v.array(simObjectSchema), v.description('The SIMs of this page, by id ascending; empty beyond the last page.')),
  }),
  v.description('A page of SIMs.'),
);

/** A2's path parameter: the internal SIM id, 1 to 15 digits (anything else is 404 not_found). */
export const simIdParameterSchema = v.pipe(
  v.number(),
  v.integer(),
  v.minValue(0),
  v.maxValue(999_999_999_999_999),
  v.description('Internal SIM id (not the ICCID), 1 to 15 digits. Anything else, or a SIM outside the key\'s scope, is 404 not_found.'),
);

/** An ICCID path parameter: 1 to 20 digits (anything else is 404 not_found). */
export const iccidParameterSchema = v.pipe(
  v.string(),
  v.regex(/^\d{1,20}$/),
  v.description("ICCID of a SIM in the key's scope, up to 20 digits; anything else, or a SIM outside the scope, is 404 not_found."),
);

/** The SIM object. */
export type SimObject = v.InferOutput<typeof simObjectSchema>;
/** A1's list envelope. */
export type SimList = v.InferOutput<typeof simListSchema>;
