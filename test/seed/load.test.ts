import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { loadSeedDocument } from '../../local/seed/load';
import { SeedValidationError } from '../../local/seed/validate';
import { claimMsisdnAlone, findSimByMsisdn } from '../../shared/msisdn/msisdn-index';
import { gsi1Partition, key } from '../../shared/db/keys';
import { readList } from '../../shared/sim-lists/read-list';
import { createTestTable, testDynamoClient } from '../support/resources';
import { demoDocument, scanAll, secrets, smallDocument, stringsIn } from './fixtures';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

const demoCounts = {
  customer: 5, user: 5, bearer_token: 6, api_key: 4, data_bundle: 1, sim: 30,
  // The list index (shared/sim-lists): two entries (id order, order of update) per customer on
  // each SIM owner's path: 2 × (8 × 1 (Acme) + 7 × 2 (North) + 5 × 3 (Depot) + 5 × 2 (South) + 5 × 1 (Globex));
  // per group its META; per customer and day a position counter; per customer a count page in
  // id order and one per day in order of update.
  sim_list_entry: 104, sim_list_meta: 2, sim_list_sequence: 27, sim_list_counts: 32,
  plan: 14, stock_unit: 14, account: 4, device: 4,
  // The MSISDN index: one claim per SIM with an MSISDN (29 of the 30).
  msisdn_claim: 29,
  // The ICCID items of the operator feed: one per SIM.
  sim_iccid: 30,
  // Per group its directory (names, bundles, pool usage); per SIM on a bundle its pool contribution.
  group_directory: 2, pool_contribution: 7,
};

describe('loading a seed document', () => {
  let client: DynamoDBClient;
  let documents: DynamoDBDocumentClient;
  beforeAll(() => {
    client = testDynamoClient();
    documents = DynamoDBDocumentClient.from(client);
  });
  afterAll(() => client.destroy());

  describe('the demo seed', () => {
    let tableName: string;
    let result: Awaited<ReturnType<typeof loadSeedDocument>>;
    beforeAll(async () => {
      tableName = await createTestTable();
      result = await loadSeedDocument(demoDocument(), { client, tableName });
    });

    it('loads every item and reports the counts per item type', async () => {
      expect(result).toEqual({ items: 320, counts: demoCounts });
      const stored = await scanAll(client, tableName);
      const storedCounts: Record<string, number> = {};
      for (const item of stored) storedCounts[String(item.type ?? 'sim_list_entry')] = (storedCounts[String(item.type ?? 'sim_list_entry')] ?? 0) + 1;
      expect([stored.length, storedCounts]).toEqual([320, demoCounts]);
    });

    it('stores no plain-text token or key anywhere, only SHA-256 hashes of the whole strings', async () => {
      const demo = demoDocument() as { bearer_tokens: { token: string }[]; api_keys: { key: string }[] };
      const plainTexts = [...demo.bearer_tokens.map((entry) => entry.token), ...demo.api_keys.map((entry) => entry.key)];
      const values = stringsIn(await scanAll(client, tableName));
      for (const plain of plainTexts) {
        const secret = plain.split('_').slice(2).join('_');
        expect(values.filter((value) => value.includes(secret))).toEqual([]);
      }
      const token = await documents.send(new GetCommand({ TableName: tableName, Key: key.bearerToken('demo01') }));
      expect(token.Item).toEqual({
        PK: 'TOKEN#demo01', SK: 'TOKEN', GSI1PK: 'USER#u-ada', GSI1SK: 'TOKEN#demo01', type: 'bearer_token', prefix: 'demo01',
        secret_hash: sha256(demo.bearer_tokens[0]!.token), user_id: 'u-ada', revoked: false,
        user_active: true, user_roles: ['developer'], user_customer_id: 'acme', verified_at: expect.stringMatching(/\+00:00$/),
      });
      const apiKey = await documents.send(new GetCommand({ TableName: tableName, Key: key.apiKey('demo02') }));
      expect(apiKey.Item).toEqual({
        PK: 'APIKEY#demo02', SK: 'APIKEY', type: 'api_key', prefix: 'demo02', secret_hash: sha256(demo.api_keys[1]!.key),
        customer_id: 'acme-north', customer_path: ['acme', 'acme-north'], revoked: false, scopes: ['sims:read', 'sms:send'], verified_at: expect.stringMatching(/\+00:00$/),
      });
    });

    it("lists each SIM in the lists of its owner and of each of its ancestors, and no other", async () => {
      const scopeOf = async (customerId: string) => {
        const groupId = customerId.startsWith('acme') ? 'acme' : 'globex';
        const listed = await readList({ db: documents, tableName }, { groupId, customerId, direct: false, page: 1, pageSize: 100 });
        return listed?.ids;
      };
      const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
      expect(await scopeOf('acme')).toEqual(range(1001, 1025));
      expect(await scopeOf('acme-north')).toEqual(range(1009, 1020));
      expect(await scopeOf('acme-north-depot')).toEqual(range(1016, 1020));
      expect(await scopeOf('acme-south')).toEqual(range(1021, 1025));
      expect(await scopeOf('globex')).toEqual(range(1026, 1030));
    });

    it('finds a SIM by ICCID and a customer by name through GSI1', async () => {
      const bySecondary = (value: string) =>
        documents.send(new QueryCommand({
          TableName: tableName,
          IndexName: 'GSI1',
          KeyConditionExpression: 'GSI1PK = :pk',
          ExpressionAttributeValues: { ':pk': value },
        }));
      expect((await bySecondary(gsi1Partition.simByIccid('8944500000000001016'))).Items?.map((item) => item.id)).toEqual([1016]);
      expect((await bySecondary(gsi1Partition.customerByName('Acme North Depot'))).Items?.map((item) => item.id)).toEqual(['acme-north-depot']);
      expect((await bySecondary(gsi1Partition.tokensOfUser('u-ada'))).Items?.map((item) => item.prefix)).toEqual(['demo01', 'demo05']);
    });

    it('copies the bundle with its exact pool usage onto each of its SIMs', async () => {
      const bundle = { id: 'b-acme-fleet', allowance_mb: '10240.00', monthly_cost: '50.00', per_sim_access_fee: '1.00', pool_used_mb: '41.20' };
      const stored = await documents.send(new GetCommand({ TableName: tableName, Key: key.dataBundle('b-acme-fleet') }));
      expect(stored.Item).toEqual({ PK: 'BUNDLE#b-acme-fleet', SK: 'BUNDLE', type: 'data_bundle', customer_id: 'acme', ...bundle });
      const sim = await documents.send(new GetCommand({ TableName: tableName, Key: key.sim(1017) }));
      expect(sim.Item?.data_bundle).toEqual(bundle);
      const offBundle = await documents.send(new GetCommand({ TableName: tableName, Key: key.sim(1018) }));
      expect(offBundle.Item?.data_bundle).toBeNull();
    });
  });

  it('sums 0.10 + 0.20 into a pool usage of exactly "0.30"', async () => {
    const tableName = await createTestTable();
    await loadSeedDocument(smallDocument(), { client, tableName });
    const stored = await documents.send(new GetCommand({ TableName: tableName, Key: key.dataBundle('b1') }));
    expect(stored.Item?.pool_used_mb).toBe('0.30');
    const values = stringsIn(await scanAll(client, tableName));
    for (const plain of Object.values(secrets)) expect(values.filter((value) => value.includes(plain.split('_')[2]!))).toEqual([]);
  });

  it('loads an empty document as nothing', async () => {
    const tableName = await createTestTable();
    expect(await loadSeedDocument({}, { client, tableName })).toEqual({ items: 0, counts: {} });
    expect(await scanAll(client, tableName)).toEqual([]);
  });

  it('refuses a SIM whose MSISDN another SIM of the table holds, naming both, and writes nothing', async () => {
    const tableName = await createTestTable();
    await loadSeedDocument(smallDocument(), { client, tableName });
    const before = await scanAll(client, tableName);
    const small = smallDocument();
    const second = { ...small, sims: [{ ...small.sims[2]!, id: 2001, iccid: '8944500000000002001', msisdn: '+447700900003' }] };
    const error = await loadSeedDocument(second, { client, tableName }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SeedValidationError);
    expect((error as SeedValidationError).problems).toEqual([
      'sims[0] (id 2001): msisdn "+447700900003" is already used by SIM 1003 (ICCID 8944500000000001003) in the table',
    ]);
    expect(await scanAll(client, tableName)).toEqual(before);
    // The same SIMs loaded again keep their own numbers.
    await expect(loadSeedDocument(smallDocument(), { client, tableName })).resolves.toMatchObject({ counts: { msisdn_claim: 2 } });
  });

  it('finds a SIM by its MSISDN, however it is spelt, through its claim', async () => {
    const tableName = await createTestTable();
    await loadSeedDocument(smallDocument(), { client, tableName });
    const table = { db: documents, tableName };
    expect((await findSimByMsisdn(table, '+44 7700 900001'))?.id).toBe(1001);
    expect((await findSimByMsisdn(table, '447700900003'))?.iccid).toBe('8944500000000001003');
    expect(await findSimByMsisdn(table, '+447700900002')).toBeUndefined();
    expect(await findSimByMsisdn(table, 'no digits')).toBeUndefined();
  });

  it('claims an MSISDN for one SIM only, and lets its holder claim it again', async () => {
    const tableName = await createTestTable();
    const table = { db: documents, tableName };
    expect(await claimMsisdnAlone(table, { id: 1, iccid: '1', msisdn: '447700900111' }, 1_000)).toBe(true);
    expect(await claimMsisdnAlone(table, { id: 2, iccid: '2', msisdn: '+447700900111' }, 2_000)).toBe(false);
    expect(await claimMsisdnAlone(table, { id: 1, iccid: '1', msisdn: '447700900111' }, 3_000)).toBe(true);
    expect(await claimMsisdnAlone(table, { id: 3, iccid: '3', msisdn: null }, 4_000)).toBe(true);
    // A claim made without a feed record counts as made at the time of its write.
    expect(await scanAll(client, tableName)).toEqual([
      { PK: 'MSISDN#447700900111', SK: 'MSISDN', type: 'msisdn_claim', msisdn: '447700900111', sim_id: 1, iccid: '1', claim_ms: 3_000, released: false },
    ]);
  });

  it('writes many batches of 25 completely', async () => {
    const tableName = await createTestTable();
    const document = {
      customers: [{ id: 'bulk', name: 'Bulk', parent: null, sms_enabled: true }],
      sims: Array.from({ length: 100 }, (_, index) => ({
        id: index + 1, iccid: String(index + 1), msisdn: null, status: 'active', connection_status: 'active', customer: 'bulk',
        tariff_name: null, data_used_mb: '0.01', data_overage_mb: '0.00', base_cost: '0.00', overage_cost: '0.00',
        data_bundle: null, updated_at: '2026-11-20T10:00:00+00:00',
      })),
    };
    expect(await loadSeedDocument(document, { client, tableName })).toEqual({
      items: 406,
      counts: { customer: 1, sim: 100, sim_iccid: 100, sim_list_entry: 200, sim_list_meta: 1, sim_list_sequence: 1, sim_list_counts: 2, group_directory: 1 },
    });
    expect((await scanAll(client, tableName)).length).toBe(406);
  });
});
