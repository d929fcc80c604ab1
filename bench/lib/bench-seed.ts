/**
 * The benchmark's data: the demo seed (so that the event fixtures of events/ reach their
 * success path: plans, stock, accounts, the demo credentials) plus
 *
 * - the `bench` customer group (a parent and one sub-customer) with 60 SIMs, one API key and
 *   many developers, each with a bearer token: Area A's rate limits count per user and
 *   customer group (10 per 10 s, 60 per minute, one list per 5 s), so every measured request
 *   is sent by a user that still has budget (see CredentialPool);
 * - the `scale` customer group with 20,000 SIMs in its scope (18,000 owned by the group,
 *   2,000 by its sub-customer), statuses spread evenly, updated over the last 30 days, with
 *   its own key and developers, for the list pages at scale.
 *
 * Items are made by the seed loader's own code (validation, then seedItems: the same SIM and
 * sim_scope items as any seed) and written with parallel BatchWriteItem calls.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { seedItems } from '../../local/seed/items';
import { parseSeedDocument } from '../../local/seed/validate';

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
  scale: {
    customerId: string;
    name: string;
    subCustomerName: string;
    sims: number;
    credentials: BenchCredential[];
  };
}

/** Sizes of the seed. */
export interface BenchSeedOptions {
  benchUsers: number;
  scaleUsers: number;
  scaleSims: number;
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
  const scaleKey = 'devkey_scalekey_ScaleKeySecret0123456789abcdefghij';
  const benchCredentials = credentialsFor('bench', options.benchUsers, benchKey);
  const scaleCredentials = credentialsFor('scale', options.scaleUsers, scaleKey);

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
  const firstScaleId = 7_000_001;
  const scaleSims = Array.from({ length: options.scaleSims }, (_, index) =>
    // Updated over the last 30 days, spread evenly; every 10th SIM belongs to the sub-customer.
    sim(firstScaleId + index, index % 10 === 9 ? 'scale-north' : 'scale', index, now - ((index * 7919) % (30 * 24)) * 3_600_000 - 60_000),
  );

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
      { id: 'scale', name: 'Scale Group', parent: null, sms_enabled: true },
      { id: 'scale-north', name: 'Scale North', parent: 'scale', sms_enabled: true },
    ],
    users: [...demo.users!, ...developers(benchCredentials, 'bench'), ...developers(scaleCredentials, 'scale')],
    bearer_tokens: [
      ...demo.bearer_tokens!,
      ...[...benchCredentials, ...scaleCredentials].map((credential) => ({ token: credential.bearerToken, user: credential.userId, revoked: false })),
    ],
    api_keys: [
      ...demo.api_keys!,
      { key: benchKey, customer: 'bench', revoked: false },
      { key: scaleKey, customer: 'scale', revoked: false },
    ],
    sims: [...demo.sims!, ...benchSims, ...scaleSims],
  };
  return {
    document,
    data: {
      bench: { customerId: 'bench', credentials: benchCredentials, simIds: benchSimIds, smsIccid: benchSims[0]!.iccid },
      scale: {
        customerId: 'scale', name: 'Scale Group', subCustomerName: 'Scale North', sims: options.scaleSims, credentials: scaleCredentials,
      },
    },
  };
};

/**
 * Validates the document and writes its items (the seed loader's seedItems) into the table
 * with `parallel` BatchWriteItem calls in flight, retrying unprocessed items. Returns the
 * number of items written.
 */
export const writeSeed = async (client: DynamoDBClient, tableName: string, document: unknown, parallel = 16): Promise<number> => {
  const items = seedItems(parseSeedDocument(document));
  const db = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const start = next;
      next += 25;
      if (start >= items.length) return;
      let pending = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        if (attempt > 10) throw new Error(`${pending.length} seed items stayed unprocessed`);
        if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
        const output = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
        pending = (output.UnprocessedItems?.[tableName] ?? []) as typeof pending;
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return items.length;
};
