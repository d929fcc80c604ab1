/**
 * The shape of a seed document (LOCAL-CONTRACT.md, "Seed document") as valibot schemas: types,
 * formats and allowed values of every field. Cross-references and uniqueness are checked
 * afterwards, in ./validate.ts. Every message completes the sentence "<field> ...".
 */
import * as v from 'valibot';
import {
  customerSchema,
  dataBundleSchema,
  decimal,
  email,
  entry,
  flag,
  iccid,
  identifier,
  isoWithOffset,
  maxPhoneLength,
  picklist,
  simFields,
  text,
} from '../../shared/vocabulary/fields';
import { apiKeyScopes, defaultApiKeyScopes } from '../../shared/auth/scopes';
import { apiKeyPattern, bearerTokenPattern } from './credentials';

export { customerSchema, dataBundleSchema };
/** Plan categories. */
export const planCategories = ['business_travel', 'business_topup', 'travel', 'travel_topup', 'physical', 'iot_contract'] as const;
/** Stock unit kinds. */
export const stockKinds = ['esim', 'physical'] as const;
/** Storefront account types. */
export const accountTypes = ['consumer', 'traveler', 'business', 'reseller'] as const;

const section = <T extends v.GenericSchema>(item: T) => v.nullish(v.array(item, 'must be an array'), () => []);

/** users[]: `developer` is the role Area A requires. */
export const userSchema = entry({
  id: identifier(),
  email: email(),
  customer: identifier(),
  active: flag(),
  roles: v.array(identifier(), 'must be an array of strings'),
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

/**
 * api_keys[]: the key in plain text; stored only as a hash. `scopes` (issue #33): any of
 * sims:read, sms:send, sims:manage; absent means sims:read and sms:send.
 */
export const apiKeySchema = entry({
  key: v.pipe(
    v.string('must be a string'),
    v.regex(apiKeyPattern, 'must have the shape devkey_<prefix>_<secret> (prefix letters and digits, secret not empty)'),
  ),
  customer: identifier(),
  revoked: v.optional(flag(), false),
  scopes: v.optional(
    v.array(picklist(apiKeyScopes), `must be an array of scopes (${apiKeyScopes.join(', ')})`),
    () => [...defaultApiKeyScopes],
  ),
});

/** sims[]: `updated_at` absent means "now" at load time. */
export const simSchema = entry({
  ...simFields,
  data_used_mb: decimal(),
  data_overage_mb: decimal(),
  overage_cost: decimal(),
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
  phone: v.nullish(text(maxPhoneLength), null),
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
