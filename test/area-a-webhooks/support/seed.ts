/**
 * The seed of the webhook tests: a customer group (acme) with a sub-customer (acme-north),
 * another group (globex), a key for each, a pool of developer users per customer (so requests
 * spread over rate-limit counters) and one SIM per customer.
 */

/** Area A credentials of one developer user with one customer's key. */
export interface Caller {
  token: string;
  apiKey: string;
}

type Customer = 'acme' | 'north' | 'globex';

const usersPerCustomer = 30;
const pad = (index: number) => String(index).padStart(2, '0');
const customerIds: Record<Customer, string> = { acme: 'acme', north: 'acme-north', globex: 'globex' };

const callersOf = (customer: Customer): Caller[] =>
  Array.from({ length: usersPerCustomer }, (_, index) => ({
    token: `bearer_wh${customer}${pad(index)}_tokensecret${customer}${pad(index)}`,
    apiKey: `devkey_wh${customer}key_keysecret${customer}`,
  }));

/** The SIMs of the seed, one per customer. */
export const sims = {
  acme: { id: 3001, iccid: '8944500000000003001', msisdn: '447700900301' },
  north: { id: 3002, iccid: '8944500000000003002', msisdn: '447700900302' },
  globex: { id: 3003, iccid: '8944500000000003003', msisdn: '447700900303' },
};

/** The seed document (LOCAL-CONTRACT.md format). */
export const webhookSeed = {
  customers: [
    { id: 'acme', name: 'Acme Ltd', parent: null, sms_enabled: true },
    { id: 'acme-north', name: 'Acme North', parent: 'acme', sms_enabled: true },
    { id: 'globex', name: 'Globex', parent: null, sms_enabled: true },
  ],
  users: (Object.keys(customerIds) as Customer[]).flatMap((customer) =>
    Array.from({ length: usersPerCustomer }, (_, index) => ({
      id: `u-${customer}-${pad(index)}`,
      email: `dev${pad(index)}@${customer}.example`,
      customer: customerIds[customer],
      active: true,
      roles: ['developer'],
    })),
  ),
  bearer_tokens: (Object.keys(customerIds) as Customer[]).flatMap((customer) =>
    callersOf(customer).map((caller, index) => ({ token: caller.token, user: `u-${customer}-${pad(index)}`, revoked: false })),
  ),
  api_keys: (Object.keys(customerIds) as Customer[]).map((customer) => ({
    key: callersOf(customer)[0]!.apiKey,
    customer: customerIds[customer],
    revoked: false,
  })),
  sims: [
    { ...sims.acme, customer: 'acme' },
    { ...sims.north, customer: 'acme-north' },
    { ...sims.globex, customer: 'globex' },
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

/** Hands out a customer's callers in turn (each user has its own rate limits). */
export const callerPool = (customer: Customer) => {
  const callers = callersOf(customer);
  let next = 0;
  return (): Caller => callers[next++ % callers.length]!;
};
