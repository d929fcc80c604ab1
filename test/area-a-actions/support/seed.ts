/**
 * The SIM actions tests' own seed document (issue #33): a customer tree root → north, a sibling
 * south and another group; keys of every scope; one developer per test (each test has its own
 * rate-limit counters: 10 requests in 10 s per user and key) and admins; SIMs in every status.
 */

/** The plain-text API key of a label of the seed. */
export const keyOf = (label: string): string => `devkey_${label}key_KeySecret${label}0123456789abcdef`;

/** The plain-text bearer token of a user of the seed. */
export const tokenOf = (user: string): string => `bearer_${user}tok_TokenSecret${user}0123456789abcdef`;

/** The API keys: label, customer and scopes (absent: the key is stored without, as before issue #33). */
export const keys = [
  { label: 'manage', customer: 'root', scopes: ['sims:read', 'sms:send', 'sims:manage'] },
  { label: 'managenorth', customer: 'north', scopes: ['sims:manage'] },
  { label: 'readonly', customer: 'root', scopes: ['sims:read'] },
  { label: 'sendonly', customer: 'root', scopes: ['sms:send'] },
  { label: 'none', customer: 'root', scopes: [] },
  { label: 'legacy', customer: 'root' },
  { label: 'manageother', customer: 'other', scopes: ['sims:read', 'sms:send', 'sims:manage'] },
] as const;

/** The ICCID of a SIM id of the seed. */
export const iccidOf = (id: number): string => `89445000000${String(id).padStart(8, '0')}`;

/** The SIMs: id, owner and status. */
export const sims: { id: number; customer: string; status: string }[] = [
  { id: 101, customer: 'root', status: 'stock' },
  { id: 102, customer: 'root', status: 'dispatched' },
  { id: 103, customer: 'north', status: 'trial' },
  { id: 104, customer: 'root', status: 'inactive' },
  { id: 105, customer: 'root', status: 'active' },
  { id: 106, customer: 'root', status: 'trial' },
  { id: 107, customer: 'root', status: 'suspended' },
  { id: 108, customer: 'root', status: 'active' },
  { id: 109, customer: 'root', status: 'cancelled' },
  { id: 110, customer: 'root', status: 'active' },
  { id: 111, customer: 'root', status: 'active' },
  { id: 112, customer: 'root', status: 'active' },
  { id: 113, customer: 'root', status: 'active' },
  { id: 114, customer: 'root', status: 'suspended' },
  { id: 115, customer: 'south', status: 'active' },
  { id: 116, customer: 'root', status: 'active' },
  { id: 117, customer: 'root', status: 'active' },
  { id: 118, customer: 'root', status: 'active' },
  { id: 119, customer: 'root', status: 'active' },
  { id: 120, customer: 'root', status: 'active' },
  { id: 901, customer: 'other', status: 'active' },
];

/** A user of the seed: developers of root unless said otherwise. */
export interface SeedUser {
  id: string;
  customer?: string;
  roles?: string[];
}

/** The seed document with these users (one token each). */
export const actionsSeed = (users: SeedUser[]) => ({
  customers: [
    { id: 'root', name: 'Root Group', parent: null, sms_enabled: true },
    { id: 'north', name: 'North Ltd', parent: 'root', sms_enabled: true },
    { id: 'south', name: 'South Ltd', parent: 'root', sms_enabled: true },
    { id: 'other', name: 'Other Group', parent: null, sms_enabled: true },
  ],
  users: users.map((user) => ({ id: user.id, email: `${user.id}@example.com`, customer: user.customer ?? 'root', active: true, roles: user.roles ?? ['developer'] })),
  bearer_tokens: users.map((user) => ({ token: tokenOf(user.id), user: user.id, revoked: false })),
  api_keys: keys.map((entry) => ({ key: keyOf(entry.label), customer: entry.customer, revoked: false, ...('scopes' in entry ? { scopes: [...entry.scopes] } : {}) })),
  sims: sims.map((sim) => ({
    id: sim.id, iccid: iccidOf(sim.id), msisdn: `4477009${String(sim.id).padStart(5, '0')}`, status: sim.status,
    connection_status: 'active', customer: sim.customer, tariff_name: 'IoT 1GB', data_used_mb: '1.00', data_overage_mb: '0.00',
    base_cost: '2.00', overage_cost: '0.00', data_bundle: null,
  })),
});
