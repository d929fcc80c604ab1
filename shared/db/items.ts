/**
 * The items stored in the single table, as written by the seed loader and the domain.
 * Keys come from ./keys.ts. Amounts are GBP decimal strings ("12.50"); times ISO-8601 strings
 * unless the name ends in `_ms` (epoch milliseconds) or is `expires_at` (epoch seconds, TTL).
 * Secrets are never stored, only SHA-256 hashes (hex) of the whole token or key string.
 */

/** A customer (account) of Area A. `path` lists ids from the top-level group down to itself. */
export interface CustomerItem {
  PK: string; SK: string; GSI1PK: string; GSI1SK: string;
  type: 'customer';
  id: string;
  name: string;
  parent: string | null;
  path: string[];
  sms_enabled: boolean;
}

/** A developer portal user. */
export interface UserItem {
  PK: string; SK: string;
  type: 'user';
  id: string;
  email: string;
  customer_id: string;
  active: boolean;
  roles: string[];
}

/**
 * A personal bearer token, found by its prefix. It carries a copy of its user's state
 * (`user_*`), kept in step by whatever changes the user, so that auth needs one read.
 */
export interface BearerTokenItem {
  PK: string; SK: string; GSI1PK: string; GSI1SK: string;
  type: 'bearer_token';
  prefix: string;
  secret_hash: string;
  user_id: string;
  revoked: boolean;
  user_active: boolean;
  user_roles: string[];
  user_customer_id: string;
}

/** A customer-group API key, found by its prefix, with its customer's path for scoping. */
export interface ApiKeyItem {
  PK: string; SK: string;
  type: 'api_key';
  prefix: string;
  secret_hash: string;
  customer_id: string;
  customer_path: string[];
  revoked: boolean;
}

/** A shared data bundle's figures as copied onto each SIM on it. */
export interface SimBundleSnapshot {
  id: string;
  allowance_mb: string;
  monthly_cost: string;
  per_sim_access_fee: string;
  /** Sum of data_used_mb over the bundle's SIMs. */
  pool_used_mb: string;
}

/**
 * A SIM. `customer_path` is the owner's path (top-level group … owner); `data_bundle` is a
 * copy of the bundle's figures so that one read serves A2.
 */
export interface SimItem {
  PK: string; SK: string; GSI1PK: string; GSI1SK: string;
  type: 'sim';
  id: number;
  iccid: string;
  msisdn: string | null;
  status: string;
  connection_status: string;
  customer_id: string;
  customer_name: string;
  customer_path: string[];
  tariff_name: string | null;
  data_used_mb: string;
  data_overage_mb: string;
  base_cost: string;
  overage_cost: string;
  data_bundle: SimBundleSnapshot | null;
  updated_at: string;
  updated_at_ms: number;
}

/**
 * A SIM as listed from one customer's scope: one item per customer on the owner's path,
 * small, holding what list filters need, so a list page counts and offsets without reading
 * SIMs in full.
 */
export interface SimScopeItem {
  PK: string; SK: string;
  type: 'sim_scope';
  sim_id: number;
  owner_id: string;
  status: string;
  updated_at_ms: number;
}

/** A shared data bundle. */
export interface DataBundleItem {
  PK: string; SK: string;
  type: 'data_bundle';
  id: string;
  customer_id: string;
  allowance_mb: string;
  monthly_cost: string;
  per_sim_access_fee: string;
  pool_used_mb: string;
}

/** A storefront plan. `price` null means the plan has no price. */
export interface PlanItem {
  PK: string; SK: string;
  type: 'plan';
  sku: string;
  name: string;
  category: 'business_travel' | 'business_topup' | 'travel' | 'travel_topup' | 'physical' | 'iot_contract';
  published: boolean;
  price: string | null;
}

/**
 * One unassigned unit of stock. A checkout holds it (`held_by`, `hold_expires_at` epoch
 * seconds); a hold past its expiry counts as free again; payment turns it into an assignment.
 */
export interface StockUnitItem {
  PK: string; SK: string;
  type: 'stock_unit';
  iccid: string;
  kind: 'esim' | 'physical';
  held_by?: string;
  hold_expires_at?: number;
  assigned_order?: string;
}

/** A storefront buyer's account, keyed by lower-cased e-mail. */
export interface AccountItem {
  PK: string; SK: string;
  GSI1PK?: string; GSI1SK?: string;
  type: 'account';
  email: string;
  account_type: 'consumer' | 'traveler' | 'business' | 'reseller';
  name: string | null;
  phone: string | null;
  sms_opt_in: boolean;
  customer_id?: string;
}

/** An eSIM owned by an account (owner e-mail), optionally assigned to a team member's e-mail. */
export interface DeviceItem {
  PK: string; SK: string;
  type: 'device';
  iccid: string;
  owner: string;
  assigned_to: string | null;
}
