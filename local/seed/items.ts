/**
 * Turns a validated seed document into the single table's items (shared/db/items.ts), keys
 * from shared/db/keys.ts. Pure: nothing is written here (see ./load.ts).
 */
import { apiKeyItem, bearerTokenItem } from '../../shared/auth/credential-items';
import type {
  AccountItem,
  ApiKeyItem,
  BearerTokenItem,
  CustomerItem,
  DataBundleItem,
  DeviceItem,
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

/**
 * The SIM item of a validated seed SIM (SPEC.md's fields, amounts with two decimals), owned
 * by a customer of that name and path, on `bundle` (its figures copied) or none; a SIM without
 * `updated_at` is stamped `defaultUpdatedAt`. Its usage counts as the month of `defaultUpdatedAt`
 * (the load: LOCAL-CONTRACT.md, "Operator feed"). Its list positions are given later (./load.ts).
 */
export const simItemOf = (
  sim: SeedDocument['sims'][number],
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

/**
 * Every item of a validated document (parseSeedDocument): customers with their paths, users,
 * bearer tokens and API keys as hashes only, data bundles and SIMs with the bundle's pool
 * usage summed exactly, plans, stock units, accounts and devices, and one `msisdn_claim` per
 * SIM with an MSISDN (the MSISDN index, shared/msisdn/msisdn-index.ts). The SIMs' list index
 * (shared/sim-lists) is not among them: ./load.ts builds it, or leaves it to the table's
 * stream. Amounts come out with exactly two decimals; a SIM without
 * `updated_at` is stamped with `now`. Device owner and assignee e-mails are stored lower-cased,
 * like account keys, so that they compare directly.
 */
export const seedItems = (document: SeedDocument, now: Date = new Date()): Record<string, unknown>[] => {
  const paths = customerPaths(document.customers);
  const pathOf = (customerId: string): string[] => {
    const path = paths.get(customerId);
    if (!path) throw new Error(`customer "${customerId}" has no path: validate the document first`);
    return path;
  };
  const customersById = new Map(document.customers.map((customer) => [customer.id, customer]));
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
        { prefix: credentialPrefix(apiKey.key, apiKeyPattern)!, value: apiKey.key, revoked: apiKey.revoked, verifiedAt: isoUtc(now) },
        { id: apiKey.customer, path: pathOf(apiKey.customer) },
      ),
  );

  // Pool usage per bundle, summed in integer hundredths.
  const poolHundredths = new Map<string, bigint>(document.data_bundles.map((bundle) => [bundle.id, 0n]));
  for (const sim of document.sims) {
    if (sim.data_bundle !== null) {
      poolHundredths.set(sim.data_bundle, (poolHundredths.get(sim.data_bundle) ?? 0n) + toHundredths(sim.data_used_mb));
    }
  }
  const dataBundles = document.data_bundles.map((bundle): DataBundleItem => ({
    ...key.dataBundle(bundle.id),
    type: 'data_bundle',
    id: bundle.id,
    customer_id: bundle.customer,
    allowance_mb: normaliseDecimal(bundle.allowance_mb),
    monthly_cost: normaliseDecimal(bundle.monthly_cost),
    per_sim_access_fee: normaliseDecimal(bundle.per_sim_access_fee),
    pool_used_mb: formatHundredths(poolHundredths.get(bundle.id)!),
  }));
  const snapshots = new Map(
    dataBundles.map((bundle): [string, SimBundleSnapshot] => [
      bundle.id,
      {
        id: bundle.id,
        allowance_mb: bundle.allowance_mb,
        monthly_cost: bundle.monthly_cost,
        per_sim_access_fee: bundle.per_sim_access_fee,
        pool_used_mb: bundle.pool_used_mb,
      },
    ]),
  );

  const defaultUpdatedAt = isoUtc(now);
  const sims = document.sims.map((sim) =>
    simItemOf(sim, { name: customersById.get(sim.customer)!.name, path: pathOf(sim.customer) }, sim.data_bundle === null ? null : snapshots.get(sim.data_bundle)!, defaultUpdatedAt),
  );

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

  // The MSISDN index (shared/msisdn/msisdn-index.ts): one claim per SIM with an MSISDN; the ICCID
  // items through which the operator feed finds SIMs.
  const msisdnClaims = sims.flatMap((sim) => msisdnClaimItem(sim) ?? []);
  const iccidItems = sims.map(simIccidItem);

  return [
    ...customers, ...users, ...bearerTokens, ...apiKeys, ...dataBundles, ...sims,
    ...plans, ...stockUnits, ...accounts, ...devices, ...msisdnClaims, ...iccidItems,
  ] as unknown as Record<string, unknown>[];
};
