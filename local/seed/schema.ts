/**
 * The shape of a seed document (LOCAL-CONTRACT.md, "Seed document") as valibot schemas: types,
 * formats and allowed values of every field. Cross-references and uniqueness are checked
 * afterwards, in ./validate.ts. Every message completes the sentence "<field> ...".
 */
import * as v from 'valibot';
import { parseIsoDateTime } from '../../shared/time/iso-date-time';
import { apiKeyPattern, bearerTokenPattern } from './credentials';
import { decimalPattern } from './decimal';

/** SIM status values (SPEC.md, "SIM status"). */
export const simStatuses = ['active', 'inactive', 'suspended', 'cancelled', 'stock', 'dispatched', 'trial'] as const;
/** SIM connection_status values. */
export const connectionStatuses = ['active', 'inactive'] as const;
/** Plan categories. */
export const planCategories = ['business_travel', 'business_topup', 'travel', 'travel_topup', 'physical', 'iot_contract'] as const;
/** Stock unit kinds. */
export const stockKinds = ['esim', 'physical'] as const;
/** Storefront account types. */
export const accountTypes = ['consumer', 'traveler', 'business', 'reseller'] as const;

const oneOf = (values: readonly string[]) => `must be one of ${values.join(', ')}`;

const text = () => v.pipe(v.string('must be a string'), v.check((value) => value.trim() !== '', 'must not be empty'));
const identifier = () => v.pipe(v.string('must be a string'), v.regex(/^\S+$/, 'must be a non-empty string without spaces'));
const flag = () => v.boolean('must be true or false');
const email = () => v.pipe(v.string('must be a string'), v.regex(/^[^\s@]+@[^\s@]+$/, 'must be an e-mail address'));
const decimal = () =>
  v.pipe(v.string('must be a decimal string such as "12.50"'), v.regex(decimalPattern, 'must be a decimal string such as "12.50" (at most two decimal places)'));
const iccid = () => v.pipe(v.string('must be a string of digits'), v.regex(/^\d{1,20}$/, 'must be 1 to 20 digits'));
const picklist = <T extends readonly [string, ...string[]]>(values: T) => v.picklist(values, oneOf(values));
const isoWithOffset = () =>
  v.pipe(
    v.string('must be a string'),
    v.check((value) => parseIsoDateTime(value, { requireOffset: true }) !== undefined, 'must be an ISO-8601 date-time with a UTC offset, such as "2026-11-20T10:00:00+00:00"'),
  );
const entry = <T extends v.ObjectEntries>(entries: T) => v.strictObject(entries, 'must be an object');
const section = <T extends v.GenericSchema>(item: T) => v.nullish(v.array(item, 'must be an array'), () => []);

/** customers[]: parent null (or absent) for a top-level customer group. */
export const customerSchema = entry({
  id: identifier(),
  name: text(),
  parent: v.nullish(identifier(), null),
  sms_enabled: flag(),
});

/** users[]: `developer` is the role Area A requires. */
export const userSchema = entry({
  id: identifier(),
  email: email(),
  customer: identifier(),
  active: flag(),
  roles: v.array(text(), 'must be an array of strings'),
});

/** bearer_tokens[]: the token in plain text; stored only as a hash. */
export const bearerTokenSchema = entry({
  token: v.pipe(
    v.string('must be a string'),
    v.regex(bearerTokenPattern, 'must have the shape bearer_<prefix>_<secret> (prefix letters and digits, secret not empty)'),
  ),
  user: identifier(),
  revoked: v.optional(flag(), false),
});

/** api_keys[]: the key in plain text; stored only as a hash. */
export const apiKeySchema = entry({
  key: v.pipe(
    v.string('must be a string'),
    v.regex(apiKeyPattern, 'must have the shape devkey_<prefix>_<secret> (prefix letters and digits, secret not empty)'),
  ),
  customer: identifier(),
  revoked: v.optional(flag(), false),
});

/** data_bundles[]: pool_used_mb is computed from the bundle's SIMs, never given. */
export const dataBundleSchema = entry({
  id: identifier(),
  customer: identifier(),
  allowance_mb: decimal(),
  monthly_cost: decimal(),
  per_sim_access_fee: decimal(),
});

/** sims[]: `updated_at` absent means "now" at load time. */
export const simSchema = entry({
  id: v.pipe(
    v.number('must be a positive integer'),
    v.safeInteger('must be a positive integer'),
    v.minValue(1, 'must be a positive integer'),
    v.maxValue(999_999_999_999_999, 'must have at most 15 digits'),
  ),
  iccid: iccid(),
  msisdn: v.nullish(text(), null),
  status: picklist(simStatuses),
  connection_status: picklist(connectionStatuses),
  customer: identifier(),
  tariff_name: v.nullish(text(), null),
  data_used_mb: decimal(),
  data_overage_mb: decimal(),
  base_cost: decimal(),
  overage_cost: decimal(),
  data_bundle: v.nullish(identifier(), null),
  updated_at: v.optional(isoWithOffset()),
});

/** plans[]: price null for a plan without a price. */
export const planSchema = entry({
  sku: identifier(),
  name: text(),
  category: picklist(planCategories),
  published: flag(),
  price: v.nullable(decimal()),
});

/** stock[]: one unassigned unit each. */
export const stockUnitSchema = entry({
  iccid: iccid(),
  kind: picklist(stockKinds),
});

/** accounts[]: storefront buyers. */
export const accountSchema = entry({
  email: email(),
  type: picklist(accountTypes),
  name: v.nullish(text(), null),
  phone: v.nullish(text(), null),
  sms_opt_in: v.optional(flag(), false),
});

/** devices[]: eSIMs owned by an account, optionally assigned to a team member. */
export const deviceSchema = entry({
  iccid: iccid(),
  owner: email(),
  assigned_to: v.nullish(email(), null),
});

/** The sections of a seed document, in load order. */
export const seedSections = [
  'customers', 'users', 'bearer_tokens', 'api_keys', 'data_bundles', 'sims', 'plans', 'stock', 'accounts', 'devices',
] as const;

/** A whole seed document; every section may be absent, null or empty. */
export const seedDocumentSchema = v.strictObject(
  {
    customers: section(customerSchema),
    users: section(userSchema),
    bearer_tokens: section(bearerTokenSchema),
    api_keys: section(apiKeySchema),
    data_bundles: section(dataBundleSchema),
    sims: section(simSchema),
    plans: section(planSchema),
    stock: section(stockUnitSchema),
    accounts: section(accountSchema),
    devices: section(deviceSchema),
  },
  'must be a JSON object',
);

/** A seed document after its shape has been checked; absent sections are empty arrays. */
export type SeedDocument = v.InferOutput<typeof seedDocumentSchema>;
