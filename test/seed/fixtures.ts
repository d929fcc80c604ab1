/** Seed documents and table helpers shared by the seed tests. */
import { readFileSync } from 'node:fs';
import { type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';

/** The demo seed shipped in the repository, parsed afresh on each call. */
export const demoDocument = (): Record<string, unknown[]> =>
  JSON.parse(readFileSync(new URL('../../local/demo-seed.json', import.meta.url), 'utf8')) as Record<string, unknown[]>;

/** Plain-text secrets of a small valid document, so tests can look for them. */
export const secrets = {
  token: 'bearer_tok1_S3cretTokenValue0000000000000001',
  otherToken: 'bearer_tok2_S3cretTokenValue0000000000000002',
  apiKey: 'devkey_key1_S3cretKeyValue000000000000000001',
};

/**
 * A small valid document: top → mid → leaf, plus another top-level group; a bundle of top's
 * used by SIMs 1001 (leaf, 0.10 MB) and 1002 (mid, 0.20 MB); SIM 1003 of other is off bundles.
 */
export const smallDocument = () => ({
  customers: [
    { id: 'top', name: 'Top Ltd', parent: null, sms_enabled: true },
    { id: 'mid', name: 'Top Mid', parent: 'top', sms_enabled: true },
    { id: 'leaf', name: 'Top Leaf', parent: 'mid', sms_enabled: false },
    { id: 'other', name: 'Other plc', parent: null, sms_enabled: true },
  ],
  users: [
    { id: 'u1', email: 'one@top.example', customer: 'top', active: true, roles: ['developer'] },
    { id: 'u2', email: 'two@other.example', customer: 'other', active: false, roles: [] },
  ],
  bearer_tokens: [
    { token: secrets.token, user: 'u1', revoked: false },
    { token: secrets.otherToken, user: 'u2', revoked: true },
  ],
  api_keys: [{ key: secrets.apiKey, customer: 'mid', revoked: false }],
  data_bundles: [{ id: 'b1', customer: 'top', allowance_mb: '1024', monthly_cost: '50.5', per_sim_access_fee: '1.00' }],
  sims: [
    {
      id: 1001, iccid: '8944500000000001001', msisdn: '447700900001', status: 'active', connection_status: 'active',
      customer: 'leaf', tariff_name: 'Pool', data_used_mb: '0.10', data_overage_mb: '0.00', base_cost: '1.00',
      overage_cost: '0.00', data_bundle: 'b1', updated_at: '2026-11-20T10:00:00+01:00',
    },
    {
      id: 1002, iccid: '8944500000000001002', msisdn: null, status: 'trial', connection_status: 'inactive',
      customer: 'mid', tariff_name: null, data_used_mb: '0.2', data_overage_mb: '0', base_cost: '5',
      overage_cost: '0.00', data_bundle: 'b1', updated_at: '2026-11-21T00:00:00Z',
    },
    {
      id: 1003, iccid: '8944500000000001003', msisdn: '447700900003', status: 'stock', connection_status: 'inactive',
      customer: 'other', tariff_name: 'IoT 1GB', data_used_mb: '7.77', data_overage_mb: '0.00', base_cost: '5.00',
      overage_cost: '0.00', data_bundle: null, updated_at: '2026-11-19T08:30:00.250-05:00',
    },
  ],
  plans: [
    { sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12' },
    { sku: 'IOT-CONTRACT-1GB', name: 'IoT 1 GB', category: 'iot_contract', published: false, price: null },
  ],
  stock: [
    { iccid: '8944500000000009001', kind: 'esim' },
    { iccid: '8944500000000009101', kind: 'physical' },
  ],
  accounts: [
    { email: 'Sam@Example.com', type: 'traveler', name: 'Sam' as string | null, phone: '+447700900123' as string | null, sms_opt_in: true },
    { email: 'ops@initech.example', type: 'business', name: 'Initech', phone: null, sms_opt_in: false },
  ],
  devices: [
    { iccid: '8944500000000008001', owner: 'sam@example.com', assigned_to: null },
    { iccid: '8944500000000008002', owner: 'ops@initech.example', assigned_to: 'Alex@Initech.example' },
  ],
});

/** Every item of a table (a paginated scan), unmarshalled. */
export const scanAll = async (client: DynamoDBClient, tableName: string): Promise<Record<string, unknown>[]> => {
  const documents = DynamoDBDocumentClient.from(client);
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }));
    items.push(...((page.Items ?? []) as Record<string, unknown>[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};

/** Every string held anywhere in a value (nested lists and maps included). */
export const stringsIn = (value: unknown): string[] => {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
};
