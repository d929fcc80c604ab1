/**
 * Turns a validated seed document into the single table's items (shared/db/items.ts), keys
 * from shared/db/keys.ts. Pure: nothing is written here (see ./load.ts).
 */
import { apiKeyItem, bearerTokenItem } from '../../shared/auth/credential-items';
import { scopesOfKey } from '../../shared/auth/scopes';
import type {
  AccountItem,
  ApiKeyItem,
  BearerTokenItem,
  CustomerItem,
  DataBundleItem,
  DeviceItem,
  MsisdnClaimItem,
  PlanItem,
  SimBundleSnapshot,
  SimItem,
  StockUnitItem,
  UserItem,
} from '../../shared/db/items';
import { gsi1, key } from '../../shared/db/keys';
import { simIccidItem } from '../../shared/sims/sim-writes';
import { msisdnClaimItem } from '../../shared/msisdn/msisdn-index';
import { parseIsoDateTime } from '../../shared/time/iso-date-time';
import { apiKeyPattern, bearerTokenPattern, credentialPrefix } from './credentials';
import { formatHundredths, normaliseDecimal, toHundredths } from '../../shared/vocabulary/decimal';
import { customerPaths } from './paths';
import type { SeedDocument } from './schema';
import type { SeedSim } from './sim-ledger';

/**
 * The SIM item of a validated seed SIM (SPEC.md's fields, amounts with two decimals), owned
 * by a customer of that name and path, on `bundle` (its figures copied) or none; a SIM without
 * `updated_at` is stamped `defaultUpdatedAt`. Its usage counts as the month of `defaultUpdatedAt`
 * (the load: LOCAL-CONTRACT.md, "Operator feed"). Its list positions are given later (./load.ts).
 */
export const simItemOf = (
  sim: SeedSim,
  owner: { name: string; path: string[] },
  bundle: SimBundleSnapshot | null,
  defaultUpdatedAt: string,
): SimItem => {
  const updatedAt = sim.updated_at ?? defaultUpdatedAt;
  return {
    ...key.sim(sim.id),
    ...gsi1.simByIccid(sim.iccid),
    type: 'sim',
    id: sim.id,
    iccid: sim.iccid,
    msisdn: sim.msisdn,
    status: sim.status,
    connection_status: sim.connection_status,
    customer_id: sim.customer,
    customer_name: owner.name,
    customer_path: owner.path,
    tariff_name: sim.tariff_name,
    data_used_mb: normaliseDecimal(sim.data_used_mb),
    data_overage_mb: normaliseDecimal(sim.data_overage_mb),
    base_cost: normaliseDecimal(sim.base_cost),
    overage_cost: normaliseDecimal(sim.overage_cost),
    data_bundle: bundle === null ? null : { ...bundle },
    updated_at: updatedAt,
    updated_at_ms: parseIsoDateTime(updatedAt, { requireOffset: true })!,
    usage_month: defaultUpdatedAt.slice(0, 7),
  };
};

/** `now` as an ISO-8601 string with an explicit +00:00 offset. */
const isoUtc = (now: Date): string => now.toISOString().replace(/Z$/, '+00:00');

/** Per data bundle, the usage of its SIMs in hundredths of a MB, summed exactly. */
export const poolHundredthsOf = (sims: readonly SeedSim[]): Map<string, bigint> => {
  const sums = new Map<string, bigint>();
  for (const sim of sims) {
    if (sim.data_bundle !== null) sums.set(sim.data_bundle, (sums.get(sim.data_bundle) ?? 0n) + toHundredths(sim.data_used_mb));
  }
  return sums;
};

/** What turns the SIM entries of one document into items: each customer's name and path, each bundle's figures, the load's time. */
export interface SimItemContext {
  owners: Map<string, { name: string; path: string[] }>;
  bundles: Map<string, SimBundleSnapshot>;
  defaultUpdatedAt: string;
}

/** The items of one SIM entry: the SIM, its MSISDN claim when it has a number, and its ICCID item. */
export interface SeedSimItems {
  sim: SimItem;
  claim?: MsisdnClaimItem;
  iccid: Record<string, unknown>;
}

/** The items of SIM entry `sim` of a validated document (its customer and bundle exist). */
export const seedSimItems = (sim: SeedSim, context: SimItemContext): SeedSimItems => {
  const owner = context.owners.get(sim.customer);
  if (!owner) throw new Error(`customer "${sim.customer}" has no path: validate the document first`);
  const item = simItemOf(sim, owner, sim.data_bundle === null ? null : context.bundles.get(sim.data_bundle)!, context.defaultUpdatedAt);
  const claim = msisdnClaimItem(item);
  return { sim: item, ...(claim ? { claim } : {}), iccid: simIccidItem(item) };
};

/**
 * Every item of a validated document's sections but its SIMs (./validate.ts), and what makes
 * its SIMs' items (`simContext`): customers with their paths, users, bearer tokens and API keys
 * as hashes only, data bundles with their pool usage (`poolHundredths`, summed over the SIMs),
 * plans, stock units, accounts and devices. Each list in document order.
 */
export const sectionItems = (document: SeedDocument, poolHundredths: ReadonlyMap<string, bigint>, now: Date) => {
  const paths = customerPaths(document.customers);
  const pathOf = (customerId: string): string[] => {
    const path = paths.get(customerId);
    if (!path) throw new Error(`customer "${customerId}" has no path: validate the document first`);
    return path;
  };
  const usersById = new Map(document.users.map((user) => [user.id, user]));

  // The document's entries are strict objects (no field beyond the schema's), so an item
  // carries an entry's fields as they are, under its key, with only the renamed or
  // computed fields spelt out.
  const customers = document.customers.map((customer): CustomerItem => ({
    ...key.customer(customer.id),
    ...gsi1.customerByName(customer.name, customer.id),
    type: 'customer',
    ...customer,
    path: pathOf(customer.id),
  }));

  const users = document.users.map(({ customer, roles, ...user }): UserItem => ({
    ...key.user(user.id),
    type: 'user',
    ...user,
    customer_id: customer,
    roles: [...roles],
  }));

  const bearerTokens = document.bearer_tokens.map((token): BearerTokenItem => {
    const user = usersById.get(token.user)!;
    return bearerTokenItem(
      { prefix: credentialPrefix(token.token, bearerTokenPattern)!, value: token.token, revoked: token.revoked, verifiedAt: isoUtc(now) },
      { id: user.id, active: user.active, roles: user.roles, customerId: user.customer },
    );
  });

  const apiKeys = document.api_keys.map(
    (apiKey): ApiKeyItem =>
      apiKeyItem(
        { prefix: credentialPrefix(apiKey.key, apiKeyPattern)!, value: apiKey.key, revoked: apiKey.revoked, verifiedAt: isoUtc(now), scopes: scopesOfKey(apiKey.scopes) },
        { id: apiKey.customer, path: pathOf(apiKey.customer) },
      ),
  );

  const dataBundles = document.data_bundles.map((bundle): DataBundleItem => ({
    ...key.dataBundle(bundle.id),
    type: 'data_bundle',
    id: bundle.id,
    customer_id: bundle.customer,
    allowance_mb: normaliseDecimal(bundle.allowance_mb),
    monthly_cost: normaliseDecimal(bundle.monthly_cost),
    per_sim_access_fee: normaliseDecimal(bundle.per_sim_access_fee),
    pool_used_mb: formatHundredths(poolHundredths.get(bundle.id) ?? 0n),
  }));

  const plans = document.plans.map(({ price, ...plan }): PlanItem => ({
    ...key.plan(plan.sku),
    type: 'plan',
    ...plan,
    price: price === null ? null : normaliseDecimal(price),
  }));

  const stockUnits = document.stock.map((unit): StockUnitItem => ({ ...key.stockUnit(unit.kind, unit.iccid), type: 'stock_unit', ...unit }));

  // The document's `type` of an account is the item's `account_type` (the item's `type` is its kind).
  const accounts = document.accounts.map(({ type: accountType, ...account }): AccountItem => ({
    ...key.account(account.email),
    type: 'account',
    ...account,
    account_type: accountType,
  }));

  const devices = document.devices.map((device): DeviceItem => ({
    ...key.device(device.iccid),
    type: 'device',
    iccid: device.iccid,
    owner: device.owner.toLowerCase(),
    assigned_to: device.assigned_to === null ? null : device.assigned_to.toLowerCase(),
  }));

  const simContext: SimItemContext = {
    owners: new Map(customers.map((customer) => [customer.id, { name: customer.name, path: customer.path }])),
    bundles: new Map(
      dataBundles.map((bundle): [string, SimBundleSnapshot] => [
        bundle.id,
        { id: bundle.id, allowance_mb: bundle.allowance_mb, monthly_cost: bundle.monthly_cost, per_sim_access_fee: bundle.per_sim_access_fee, pool_used_mb: bundle.pool_used_mb },
      ]),
    ),
    defaultUpdatedAt: isoUtc(now),
  };
  return { customers, users, bearerTokens, apiKeys, dataBundles, plans, stockUnits, accounts, devices, simContext };
};

/**
 * Every item of a validated document (parseSeedDocument): the items of its sections
 * (sectionItems) and of its SIMs (seedSimItems: the SIM, its `msisdn_claim`, the MSISDN index of
 * shared/msisdn/msisdn-index.ts, and its ICCID item, through which the operator feed finds
 * SIMs). The SIMs' list index (shared/sim-lists) is not among them: ./load.ts builds it, or
 * leaves it to the table's stream. Amounts come out with exactly two decimals; a SIM without
 * `updated_at` is stamped with `now`. Device owner and assignee e-mails are stored lower-cased,
 * like account keys, so that they compare directly.
 */
export const seedItems = (document: SeedDocument, now: Date = new Date()): Record<string, unknown>[] => {
  const sections = sectionItems(document, poolHundredthsOf(document.sims), now);
  const sims = document.sims.map((sim) => seedSimItems(sim, sections.simContext));
  return [
    ...sections.customers, ...sections.users, ...sections.bearerTokens, ...sections.apiKeys, ...sections.dataBundles,
    ...sims.map((items) => items.sim),
    ...sections.plans, ...sections.stockUnits, ...sections.accounts, ...sections.devices,
    ...sims.flatMap((items) => (items.claim ? [items.claim] : [])), ...sims.map((items) => items.iccid),
  ] as unknown as Record<string, unknown>[];
};
