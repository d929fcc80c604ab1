/**
 * The Area A tests' own seed document (not the demo seed): a three-level customer tree
 * root → north → northeast, a sibling south, and another top-level group; one API key per
 * customer; developers created on demand so that each test has its own rate-limit counters.
 */

const day = 24 * 3_600_000;

/** Whole-second ISO-8601 time with +00:00, `daysAgo` days before `now`. */
export const isoDaysAgo = (now: number, daysAgo: number): string =>
  new Date(Math.floor((now - daysAgo * day) / 1000) * 1000).toISOString().replace('.000Z', '+00:00');

/** The plain-text API key of a customer of the test seed. */
export const apiKeyOf = (customer: string): string => `devkey_${customer}key_KeySecret${customer}0123456789abcdef`;

/** The plain-text bearer token of a user of the test seed. */
export const tokenOf = (user: string): string => `bearer_${user}tok_TokenSecret${user}0123456789abcdef`;

/** Customers: id, name, parent. */
export const customers = [
  { id: 'root', name: 'Root Group', parent: null },
  { id: 'north', name: 'North Ltd', parent: 'root' },
  { id: 'northeast', name: 'North East Ltd', parent: 'north' },
  { id: 'south', name: 'South Ltd', parent: 'root' },
  { id: 'other', name: 'Other Group', parent: null },
] as const;

/** A user of the test seed. */
export interface TestUser {
  id: string;
  customer: string;
  active?: boolean;
  roles?: string[];
  tokenRevoked?: boolean;
}

/**
 * The seed document: `users` (each with one token), one key per customer (plus a revoked key
 * `revokedkey` of root, and `extraKeys`), the bundle `fleet` of root and six SIMs with times relative to `now`.
 */
export const areaASeed = (now: number, users: TestUser[], extraKeys: { label: string; customer: string }[] = []) => ({
  customers: customers.map((customer) => ({ ...customer, sms_enabled: true })),
  users: users.map((user) => ({
    id: user.id,
    email: `${user.id}@example.com`,
    customer: user.customer,
    active: user.active ?? true,
    roles: user.roles ?? ['developer'],
  })),
  bearer_tokens: users.map((user) => ({ token: tokenOf(user.id), user: user.id, revoked: user.tokenRevoked ?? false })),
  api_keys: [
    ...customers.map((customer) => ({ key: apiKeyOf(customer.id), customer: customer.id, revoked: false })),
    { key: apiKeyOf('revoked'), customer: 'root', revoked: true },
    ...extraKeys.map((extra) => ({ key: apiKeyOf(extra.label), customer: extra.customer, revoked: false })),
  ],
  data_bundles: [{ id: 'fleet', customer: 'root', allowance_mb: '10240', monthly_cost: '50.00', per_sim_access_fee: '1.5' }],
  sims: [
    {
      id: 1001, iccid: '8944500000000001001', msisdn: '447700900001', status: 'active', connection_status: 'active',
      customer: 'root', tariff_name: 'IoT 1GB', data_used_mb: '12.5', data_overage_mb: '0', base_cost: '5',
      overage_cost: '0.00', data_bundle: 'fleet', updated_at: isoDaysAgo(now, 40),
    },
    {
      id: 1002, iccid: '8944500000000001002', msisdn: null, status: 'suspended', connection_status: 'inactive',
      customer: 'root', tariff_name: null, data_used_mb: '0.00', data_overage_mb: '0.00', base_cost: '0.00',
      overage_cost: '0.00', data_bundle: null, updated_at: isoDaysAgo(now, 20),
    },
    {
      id: 2001, iccid: '8944500000000002001', msisdn: '447700900201', status: 'active', connection_status: 'active',
      customer: 'north', tariff_name: 'IoT 5GB', data_used_mb: '5120.75', data_overage_mb: '20.5', base_cost: '3.5',
      overage_cost: '1.25', data_bundle: null, updated_at: isoDaysAgo(now, 2),
    },
    {
      id: 3001, iccid: '8944500000000003001', msisdn: '447700900301', status: 'trial', connection_status: 'inactive',
      customer: 'northeast', tariff_name: 'Pool', data_used_mb: '100.25', data_overage_mb: '0.00', base_cost: '1.00',
      overage_cost: '0.00', data_bundle: 'fleet', updated_at: isoDaysAgo(now, 1),
    },
    {
      id: 4001, iccid: '8944500000000004001', msisdn: '447700900401', status: 'stock', connection_status: 'inactive',
      customer: 'south', tariff_name: 'IoT 1GB', data_used_mb: '0.00', data_overage_mb: '0.00', base_cost: '2.00',
      overage_cost: '0.00', data_bundle: null, updated_at: isoDaysAgo(now, 3),
    },
    {
      id: 9001, iccid: '8944500000000009001', msisdn: '447700900901', status: 'active', connection_status: 'active',
      customer: 'other', tariff_name: 'IoT 1GB', data_used_mb: '1.00', data_overage_mb: '0.00', base_cost: '2.00',
      overage_cost: '0.00', data_bundle: null, updated_at: isoDaysAgo(now, 1),
    },
  ],
});

/** The SIM objects of the test seed as a key of `root` sees them (group null for root's own). */
export const expectedSims = (now: number) => ({
  1001: {
    id: 1001, iccid: '8944500000000001001', msisdn: '447700900001', status: 'active', connection_status: 'active',
    customer_name: 'Root Group', group: null, tariff_name: 'IoT 1GB',
    usage: { data_used_mb: '12.50', data_overage_mb: '0.00' },
    cost: { currency: 'GBP', base_cost: '£5.00', overage_cost: '£0.00', total_cost: '£5.00' },
    data_bundle: {
      is_data_bundle: true, bundle_data_allowance_mb: '10240.00', bundle_monthly_cost: '£50.00',
      per_sim_access_fee: '£1.50', pool_used_mb: '112.75', pool_total_mb: '10240.00',
    },
    updated_at: isoDaysAgo(now, 40),
  },
  1002: {
    id: 1002, iccid: '8944500000000001002', msisdn: null, status: 'suspended', connection_status: 'inactive',
    customer_name: 'Root Group', group: null, tariff_name: null,
    usage: { data_used_mb: '0.00', data_overage_mb: '0.00' },
    cost: { currency: 'GBP', base_cost: '£0.00', overage_cost: '£0.00', total_cost: '£0.00' },
    data_bundle: null,
    updated_at: isoDaysAgo(now, 20),
  },
  2001: {
    id: 2001, iccid: '8944500000000002001', msisdn: '447700900201', status: 'active', connection_status: 'active',
    customer_name: 'North Ltd', group: 'North Ltd', tariff_name: 'IoT 5GB',
    usage: { data_used_mb: '5120.75', data_overage_mb: '20.50' },
    cost: { currency: 'GBP', base_cost: '£3.50', overage_cost: '£1.25', total_cost: '£4.75' },
    data_bundle: null,
    updated_at: isoDaysAgo(now, 2),
  },
  3001: {
    id: 3001, iccid: '8944500000000003001', msisdn: '447700900301', status: 'trial', connection_status: 'inactive',
    customer_name: 'North East Ltd', group: 'North East Ltd', tariff_name: 'Pool',
    usage: { data_used_mb: '100.25', data_overage_mb: '0.00' },
    cost: { currency: 'GBP', base_cost: '£1.00', overage_cost: '£0.00', total_cost: '£1.00' },
    data_bundle: {
      is_data_bundle: true, bundle_data_allowance_mb: '10240.00', bundle_monthly_cost: '£50.00',
      per_sim_access_fee: '£1.50', pool_used_mb: '112.75', pool_total_mb: '10240.00',
    },
    updated_at: isoDaysAgo(now, 1),
  },
  4001: {
    id: 4001, iccid: '8944500000000004001', msisdn: '447700900401', status: 'stock', connection_status: 'inactive',
    customer_name: 'South Ltd', group: 'South Ltd', tariff_name: 'IoT 1GB',
    usage: { data_used_mb: '0.00', data_overage_mb: '0.00' },
    cost: { currency: 'GBP', base_cost: '£2.00', overage_cost: '£0.00', total_cost: '£2.00' },
    data_bundle: null,
    updated_at: isoDaysAgo(now, 3),
  },
});
