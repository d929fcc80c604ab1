/**
 * The benchmark's data: the demo seed (so that the event fixtures of events/ reach their
 * success path: plans, stock, accounts, the demo credentials) plus
 *
 * - the `bench` customer group (a parent and one sub-customer) with 60 SIMs, one API key and
 *   many developers, each with a bearer token: Area A's rate limits count per user and
 *   customer group (10 per 10 s, 60 per minute, one list per 5 s), so every measured request
 *   is sent by a user that still has budget (see CredentialPool);
 *
 * The runtime loads it as its seed (startLocalRuntime's `seed`: the seed loader, list index
 * included). The scale section's fleet is ./scale-fleet.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One developer's two factors. */
export interface BenchCredential {
  userId: string;
  bearerToken: string;
  apiKey: string;
}

/** What the benchmark seeded, for building requests. */
export interface BenchData {
  bench: {
    customerId: string;
    /** Users of the bench group (all developers) with the group's key. */
    credentials: BenchCredential[];
    /** SIM ids of the group (60), and one SIM with an MSISDN for SMS. */
    simIds: number[];
    smsIccid: string;
  };
}

/** Sizes of the seed. */
export interface BenchSeedOptions {
  benchUsers: number;
}

const statuses = ['active', 'inactive', 'suspended', 'cancelled', 'stock', 'dispatched', 'trial'] as const;
const day = 86_400_000;

const iso = (epochMs: number): string => new Date(Math.floor(epochMs / 1000) * 1000).toISOString().replace('.000Z', '+00:00');

const credentialsFor = (label: string, count: number, apiKey: string): BenchCredential[] =>
  Array.from({ length: count }, (_, index) => ({
    userId: `${label}-u${index}`,
    bearerToken: `bearer_${label}u${index}_BenchTokenSecret${index}abcdefghijklmnop`,
    apiKey,
  }));

/** The seed document and the credentials and ids the sections use. */
export const benchSeedDocument = (
  repositoryRoot: string,
  options: BenchSeedOptions,
  now: number = Date.now(),
): { document: Record<string, unknown[]>; data: BenchData } => {
  const demo = JSON.parse(readFileSync(join(repositoryRoot, 'local/demo-seed.json'), 'utf8')) as Record<string, unknown[]>;
  const benchKey = 'devkey_benchkey_BenchKeySecret0123456789abcdefghij';
  const benchCredentials = credentialsFor('bench', options.benchUsers, benchKey);

  const sim = (id: number, customer: string, index: number, updatedAt: number) => ({
    id,
    iccid: `8944${String(id).padStart(15, '0')}`,
    msisdn: index % 5 === 4 ? null : `4477${String(id).padStart(9, '0').slice(-9)}`,
    status: statuses[index % statuses.length]!,
    connection_status: index % 3 === 0 ? 'inactive' : 'active',
    customer,
    tariff_name: index % 4 === 0 ? null : 'IoT 1GB',
    data_used_mb: `${(index % 997) + 0.25}`,
    data_overage_mb: index % 11 === 0 ? '12.50' : '0.00',
    base_cost: '3.50',
    overage_cost: index % 11 === 0 ? '1.25' : '0.00',
    data_bundle: null,
    updated_at: iso(updatedAt),
  });

  const benchSimIds = Array.from({ length: 60 }, (_, index) => 5_000_001 + index);
  const benchSims = benchSimIds.map((id, index) => ({
    ...sim(id, index % 2 === 0 ? 'bench' : 'bench-sub', index, now - (index % 30) * day - 3_600_000),
    msisdn: `4477${String(id).slice(-9)}`,
    status: 'active',
  }));

  const developers = (credentials: BenchCredential[], customer: string) =>
    credentials.map((credential) => ({
      id: credential.userId, email: `${credential.userId}@bench.example`, customer, active: true, roles: ['developer'],
    }));
  const document = {
    ...demo,
    customers: [
      ...demo.customers!,
      { id: 'bench', name: 'Bench Group', parent: null, sms_enabled: true },
      { id: 'bench-sub', name: 'Bench Sub', parent: 'bench', sms_enabled: true },
    ],
    users: [...demo.users!, ...developers(benchCredentials, 'bench')],
    bearer_tokens: [
      ...demo.bearer_tokens!,
      ...benchCredentials.map((credential) => ({ token: credential.bearerToken, user: credential.userId, revoked: false })),
    ],
    api_keys: [
      ...demo.api_keys!,
      { key: benchKey, customer: 'bench', revoked: false },
    ],
    sims: [...demo.sims!, ...benchSims],
  };
  return {
    document,
    data: {
      bench: { customerId: 'bench', credentials: benchCredentials, simIds: benchSimIds, smsIccid: benchSims[0]!.iccid },
    },
  };
};

