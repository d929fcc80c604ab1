/**
 * The seed of the SMS tests: two customer groups, a sub-customer with SMS and one without,
 * SIMs with and without MSISDN, and a pool of developer users per group so that the tests'
 * requests spread over many (user, customer group) rate-limit counters.
 */

/** Area A credentials of one developer user with a key of one customer group. */
export interface Caller {
  token: string;
  apiKey: string;
}

const usersPerGroup = 40;

const pad = (index: number) => String(index).padStart(2, '0');

const groupCallers = (group: string): Caller[] =>
  Array.from({ length: usersPerGroup }, (_, index) => ({
    token: `bearer_${group}${pad(index)}_tokensecret${group}${pad(index)}`,
    apiKey: `devkey_${group}key_keysecret${group}`,
  }));

/** SIMs of the seed. */
export const sims = {
  /** Owned by acme directly. */
  acme: { iccid: '8944500000000002001', msisdn: '447700900201' },
  /** Owned by acme-north (a sub-customer of acme, SMS enabled). */
  north: { iccid: '8944500000000002002', msisdn: '447700900202' },
  /** Owned by acme, no MSISDN. */
  noMsisdn: { iccid: '8944500000000002003', msisdn: null },
  /** Owned by acme-quiet (a sub-customer of acme, SMS not enabled). */
  quiet: { iccid: '8944500000000002004', msisdn: '447700900204' },
  /** Owned by globex (another customer group). */
  globex: { iccid: '8944500000000002005', msisdn: '447700900205' },
};

/** The seed document (LOCAL-CONTRACT.md format). */
export const smsSeed = {
  customers: [
    { id: 'acme', name: 'Acme Ltd', parent: null, sms_enabled: true },
    { id: 'acme-north', name: 'Acme North', parent: 'acme', sms_enabled: true },
    { id: 'acme-quiet', name: 'Acme Quiet', parent: 'acme', sms_enabled: false },
    { id: 'globex', name: 'Globex', parent: null, sms_enabled: true },
  ],
  users: [
    ...Array.from({ length: usersPerGroup }, (_, index) => ({
      id: `u-acme-${pad(index)}`, email: `dev${pad(index)}@acme.example`, customer: 'acme', active: true, roles: ['developer'],
    })),
    ...Array.from({ length: usersPerGroup }, (_, index) => ({
      id: `u-globex-${pad(index)}`, email: `dev${pad(index)}@globex.example`, customer: 'globex', active: true, roles: ['developer'],
    })),
  ],
  bearer_tokens: [
    ...groupCallers('acme').map((caller, index) => ({ token: caller.token, user: `u-acme-${pad(index)}`, revoked: false })),
    ...groupCallers('globex').map((caller, index) => ({ token: caller.token, user: `u-globex-${pad(index)}`, revoked: false })),
  ],
  api_keys: [
    { key: groupCallers('acme')[0]!.apiKey, customer: 'acme', revoked: false },
    { key: groupCallers('globex')[0]!.apiKey, customer: 'globex', revoked: false },
  ],
  sims: [
    { id: 2001, ...sims.acme, customer: 'acme' },
    { id: 2002, ...sims.north, customer: 'acme-north' },
    { id: 2003, ...sims.noMsisdn, customer: 'acme' },
    { id: 2004, ...sims.quiet, customer: 'acme-quiet' },
    { id: 2005, ...sims.globex, customer: 'globex' },
  ].map((sim) => ({
    ...sim,
    status: 'active',
    connection_status: 'active',
    tariff_name: 'IoT 1GB',
    data_used_mb: '1.00',
    data_overage_mb: '0.00',
    base_cost: '5.00',
    overage_cost: '0.00',
    data_bundle: null,
    updated_at: '2026-11-20T10:00:00+00:00',
  })),
};

/**
 * Hands out the callers of a customer group in turn, so consecutive requests count against
 * different users' rate limits (10 per 10 s each).
 */
export const callerPool = (group: 'acme' | 'globex') => {
  const callers = groupCallers(group);
  let next = 0;
  return (): Caller => callers[next++ % callers.length]!;
};
