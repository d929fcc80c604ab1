import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { loadSeedDocument } from '../../local/seed/load';
import { parseSeedDocument, SeedValidationError } from '../../local/seed/validate';
import { createTestTable, testDynamoClient } from '../support/resources';
import { scanAll, smallDocument } from './fixtures';

type Document = ReturnType<typeof smallDocument> & Record<string, unknown>;

const shapeOfToken = 'must have the shape bearer_<prefix>_<secret> (prefix letters and digits, secret not empty)';
const shapeOfKey = 'must have the shape devkey_<prefix>_<secret> (prefix letters and digits, secret not empty)';
const decimalRule = 'must be a decimal string such as "12.50" (at most 12 integer digits and two decimal places)';
const isoRule = 'must be an ISO-8601 date-time with a UTC offset, such as "2026-11-20T10:00:00+00:00"';

/** A broken variant of the small valid document and the one problem it must be refused for. */
const brokenDocuments: [string, (document: Document) => void, string][] = [
  // References between entries.
  ['a SIM of a customer that does not exist', (d) => { d.sims[1]!.customer = 'nope'; }, 'sims[1] (id 1002): customer "nope" does not exist'],
  ['a parent that does not exist', (d) => { d.customers[2]!.parent = 'ghost'; }, 'customers[2] (id leaf): parent "ghost" does not exist'],
  ['a cycle of parents', (d) => { d.customers[0]!.parent = 'leaf'; }, 'customers[0] (id top): parent chain forms a cycle (top → leaf → mid → top)'],
  ['a customer that is its own parent', (d) => { d.customers[3]!.parent = 'other'; }, 'customers[3] (id other): parent is the customer itself'],
  ['a user of a customer that does not exist', (d) => { d.users[1]!.customer = 'gone'; }, 'users[1] (id u2): customer "gone" does not exist'],
  ['a token of a user that does not exist', (d) => { d.bearer_tokens[1]!.user = 'u9'; }, 'bearer_tokens[1] (prefix tok2): user "u9" does not exist'],
  ['an API key of a customer that does not exist', (d) => { d.api_keys[0]!.customer = 'gone'; }, 'api_keys[0] (prefix key1): customer "gone" does not exist'],
  ['a data bundle of a customer that does not exist', (d) => { d.data_bundles[0]!.customer = 'x'; }, 'data_bundles[0] (id b1): customer "x" does not exist'],
  ['a SIM on a data bundle that does not exist', (d) => { d.sims[2]!.data_bundle = 'b9'; }, 'sims[2] (id 1003): data_bundle "b9" does not exist'],
  [
    'a SIM on the data bundle of another customer group',
    (d) => { d.sims[2]!.data_bundle = 'b1'; },
    `sims[2] (id 1003): data_bundle "b1" belongs to customer "top", which is neither the SIM's customer nor one of its ancestors (other)`,
  ],
  [
    'a SIM on the data bundle of a sub-customer',
    (d) => { d.data_bundles[0]!.customer = 'leaf'; },
    `sims[1] (id 1002): data_bundle "b1" belongs to customer "leaf", which is neither the SIM's customer nor one of its ancestors (top → mid)`,
  ],
  ['a device whose owner is no account', (d) => { d.devices[0]!.owner = 'nobody@example.com'; }, 'devices[0] (iccid 8944500000000008001): owner "nobody@example.com" is not the e-mail of an account'],
  [
    'a device that is also a stock unit',
    (d) => { d.devices[0]!.iccid = '8944500000000009001'; },
    'devices[0] (iccid 8944500000000009001): iccid 8944500000000009001 is also listed in stock (a stock unit is unassigned, a device is owned)',
  ],
  // Uniqueness.
  ['a customer id twice', (d) => { d.customers.push({ id: 'mid', name: 'Another', parent: 'top', sms_enabled: true }); }, 'customers[4] (id mid): id "mid" is already used by customers[1] (id mid)'],
  [
    'a customer name twice in one customer group',
    (d) => { d.customers.push({ id: 'mid2', name: 'Top Mid', parent: 'leaf', sms_enabled: true }); },
    'customers[4] (id mid2): name "Top Mid" is already used in the same customer group by customers[1] (id mid)',
  ],
  ['a user id twice', (d) => { d.users.push({ ...d.users[0]!, email: 'x@top.example' }); }, 'users[2] (id u1): id "u1" is already used by users[0] (id u1)'],
  ['a token prefix twice', (d) => { d.bearer_tokens.push({ token: 'bearer_tok1_another', user: 'u1', revoked: false }); }, 'bearer_tokens[2] (prefix tok1): prefix "tok1" is already used by bearer_tokens[0] (prefix tok1)'],
  ['an API key prefix twice', (d) => { d.api_keys.push({ key: 'devkey_key1_another', customer: 'top', revoked: false }); }, 'api_keys[1] (prefix key1): prefix "key1" is already used by api_keys[0] (prefix key1)'],
  ['a data bundle id twice', (d) => { d.data_bundles.push({ ...d.data_bundles[0]! }); }, 'data_bundles[1] (id b1): id "b1" is already used by data_bundles[0] (id b1)'],
  ['a SIM id twice', (d) => { d.sims.push({ ...d.sims[2]!, iccid: '8944500000000001004', msisdn: '447700900004' } as (typeof d.sims)[number]); }, 'sims[3] (id 1003): id "1003" is already used by sims[2] (id 1003)'],
  ['an ICCID on two SIMs', (d) => { d.sims.push({ ...d.sims[2]!, id: 1004, msisdn: '447700900004' } as (typeof d.sims)[number]); }, 'sims[3] (id 1004): iccid "8944500000000001003" is already used by sims[2] (id 1003)'],
  [
    'an MSISDN on two SIMs, however it is spelt',
    (d) => { d.sims.push({ ...d.sims[2]!, id: 1004, iccid: '8944500000000001004', msisdn: '+44 7700 900001' } as (typeof d.sims)[number]); },
    'sims[3] (id 1004): msisdn "+44 7700 900001" is already used by sims[0] (id 1001)',
  ],
  ['a SKU twice', (d) => { d.plans.push({ ...d.plans[0]!, name: 'Again' }); }, 'plans[2] (sku TRAVEL-EU-5GB): sku "TRAVEL-EU-5GB" is already used by plans[0] (sku TRAVEL-EU-5GB)'],
  [
    'a stock ICCID twice, even of another kind',
    (d) => { d.stock.push({ iccid: '8944500000000009001', kind: 'physical' }); },
    'stock[2] (iccid 8944500000000009001): iccid "8944500000000009001" is already used by stock[0] (iccid 8944500000000009001)',
  ],
  [
    'an account e-mail twice, in another case',
    (d) => { d.accounts.push({ email: 'sam@EXAMPLE.com', type: 'consumer', name: null, phone: null, sms_opt_in: false }); },
    'accounts[2] (email sam@EXAMPLE.com): email "sam@example.com" is already used by accounts[0] (email Sam@Example.com)',
  ],
  [
    'a device ICCID twice',
    (d) => { d.devices.push({ ...d.devices[0]!, owner: 'ops@initech.example' }); },
    'devices[2] (iccid 8944500000000008001): iccid "8944500000000008001" is already used by devices[0] (iccid 8944500000000008001)',
  ],
  // Shapes and values.
  ['a token without a secret', (d) => { d.bearer_tokens[0]!.token = 'bearer_tok1_'; }, `bearer_tokens[0]: token ${shapeOfToken}`],
  ['a token with a bad prefix', (d) => { d.bearer_tokens[0]!.token = 'bearer_to-k_S3cretHidden'; }, `bearer_tokens[0]: token ${shapeOfToken}`],
  ['an API key of the wrong kind', (d) => { d.api_keys[0]!.key = 'bearer_key1_S3cretHidden'; }, `api_keys[0]: key ${shapeOfKey}`],
  ['an API key scope that is not one', (d) => { (d.api_keys[0] as Record<string, unknown>).scopes = ['sims:read', 'sims:write']; }, 'api_keys[0] (prefix key1): scopes[1] must be one of sims:read, sms:send, sims:manage'],
  ['API key scopes that are not an array', (d) => { (d.api_keys[0] as Record<string, unknown>).scopes = 'sims:manage'; }, 'api_keys[0] (prefix key1): scopes must be an array of scopes (sims:read, sms:send, sims:manage)'],
  ['an unknown SIM status', (d) => { d.sims[0]!.status = 'lost'; }, 'sims[0] (id 1001): status must be one of active, inactive, suspended, cancelled, stock, dispatched, trial'],
  ['an unknown connection status', (d) => { d.sims[0]!.connection_status = 'up'; }, 'sims[0] (id 1001): connection_status must be one of active, inactive'],
  ['an unknown plan category', (d) => { d.plans[0]!.category = 'gadget'; }, 'plans[0] (sku TRAVEL-EU-5GB): category must be one of business_travel, business_topup, travel, travel_topup, physical, iot_contract'],
  ['an unknown stock kind', (d) => { d.stock[0]!.kind = 'sim'; }, 'stock[0] (iccid 8944500000000009001): kind must be one of esim, physical'],
  ['an unknown account type', (d) => { d.accounts[0]!.type = 'vip'; }, 'accounts[0] (email Sam@Example.com): type must be one of consumer, traveler, business, reseller'],
  ['an amount with three decimals', (d) => { d.sims[0]!.data_used_mb = '0.125'; }, `sims[0] (id 1001): data_used_mb ${decimalRule}`],
  ['an amount given as a JSON number', (d) => { (d.plans[0] as Record<string, unknown>).price = 12.5; }, 'plans[0] (sku TRAVEL-EU-5GB): price must be a decimal string such as "12.50"'],
  ['a negative amount', (d) => { d.data_bundles[0]!.monthly_cost = '-1.00'; }, `data_bundles[0] (id b1): monthly_cost ${decimalRule}`],
  ['an ICCID of 21 digits', (d) => { d.sims[0]!.iccid = '894450000000000100100'; }, 'sims[0] (id 1001): iccid must be 1 to 20 digits'],
  ['an ICCID with letters', (d) => { d.stock[1]!.iccid = '89445X'; }, 'stock[1] (iccid 89445X): iccid must be 1 to 20 digits'],
  ['updated_at without an offset', (d) => { d.sims[0]!.updated_at = '2026-11-20T10:00:00'; }, `sims[0] (id 1001): updated_at ${isoRule}`],
  ['updated_at on a day that does not exist', (d) => { d.sims[0]!.updated_at = '2026-02-30T10:00:00Z'; }, `sims[0] (id 1001): updated_at ${isoRule}`],
  ['a SIM id of 0', (d) => { d.sims[0]!.id = 0; }, 'sims[0] (id 0): id must be a positive integer'],
  ['a SIM id that is not an integer', (d) => { d.sims[0]!.id = -1.5; }, 'sims[0] (id -1.5): id must be a positive integer'],
  ['a SIM id given as a string', (d) => { (d.sims[0] as Record<string, unknown>).id = '1001'; }, 'sims[0] (id 1001): id must be a positive integer'],
  ['a flag that is not a boolean', (d) => { (d.customers[0] as Record<string, unknown>).sms_enabled = 'yes'; }, 'customers[0] (id top): sms_enabled must be true or false'],
  ['roles that are not strings', (d) => { (d.users[0] as Record<string, unknown>).roles = ['developer', 7]; }, 'users[0] (id u1): roles[1] must be a string'],
  ['an e-mail without @', (d) => { d.users[0]!.email = 'nobody'; }, 'users[0] (id u1): email must be an e-mail address'],
  ['an entry without a required field', (d) => { delete (d.sims[0] as Record<string, unknown>).iccid; }, 'sims[0] (id 1001): iccid is required'],
  ['an entry with an unknown field', (d) => { (d.sims[0] as Record<string, unknown>).colour = 'red'; }, 'sims[0] (id 1001): unknown field "colour"'],
  [
    'an unknown top-level key',
    (d) => { d.sim = []; },
    'unknown top-level key "sim" (expected customers, users, bearer_tokens, api_keys, data_bundles, sims, plans, stock, accounts, devices)',
  ],
  ['a section that is not an array', (d) => { d.plans = {} as never; }, 'plans must be an array'],
  ['an entry that is not an object', (d) => { d.stock = ['8944500000000009001'] as never; }, 'stock[0] must be an object'],
];

describe('seed validation', () => {
  let client: DynamoDBClient;
  let tableName: string;
  beforeAll(async () => {
    client = testDynamoClient();
    tableName = await createTestTable();
  });
  afterAll(() => client.destroy());

  const expectRefused = async (document: unknown, problems: string[]) => {
    const error = await loadSeedDocument(document, { client, tableName }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SeedValidationError);
    expect((error as SeedValidationError).problems).toEqual(problems);
    expect(await scanAll(client, tableName)).toEqual([]);
    return error as SeedValidationError;
  };

  it('accepts the small document as it is', () => {
    expect(() => parseSeedDocument(smallDocument())).not.toThrow();
  });

  it.each(brokenDocuments)('refuses %s, names the entry and writes nothing', async (_name, breakIt, problem) => {
    const document = smallDocument() as Document;
    breakIt(document);
    const error = await expectRefused(document, [problem]);
    expect(error.message).toBe(`Seed document refused: ${problem}`);
  });

  it('never repeats a secret in a message', async () => {
    const document = smallDocument() as Document;
    document.bearer_tokens[0]!.token = 'bearer_to-k_S3cretHidden';
    document.api_keys[0]!.key = 'devkey_key1_S3cretVisible';
    document.api_keys[0]!.customer = 'gone';
    const error = await expectRefused(document, [
      `bearer_tokens[0]: token ${shapeOfToken}`,
      'api_keys[0] (prefix key1): customer "gone" does not exist',
    ]);
    expect(error.message).not.toContain('S3cret');
    const second = smallDocument() as Document;
    second.api_keys[0]!.customer = 'gone';
    const refused = await expectRefused(second, ['api_keys[0] (prefix key1): customer "gone" does not exist']);
    expect(refused.message).not.toContain('S3cret');
  });

  it('lists every problem of a document, in document order', async () => {
    const document = smallDocument() as Document;
    document.sims[2]!.customer = 'nope';
    document.users[0]!.customer = 'gone';
    document.devices[1]!.owner = 'nobody@example.com';
    const error = await expectRefused(document, [
      'users[0] (id u1): customer "gone" does not exist',
      'sims[2] (id 1003): customer "nope" does not exist',
      'devices[1] (iccid 8944500000000008002): owner "nobody@example.com" is not the e-mail of an account',
    ]);
    expect(error.message).toBe(
      'Seed document refused (3 problems):\n' +
        '  - users[0] (id u1): customer "gone" does not exist\n' +
        '  - sims[2] (id 1003): customer "nope" does not exist\n' +
        '  - devices[1] (iccid 8944500000000008002): owner "nobody@example.com" is not the e-mail of an account',
    );
  });

  it('reports reference problems in the same pass as field problems, never one caused by an entry that failed its own checks', async () => {
    const document = smallDocument() as Document;
    (document.customers[0] as Record<string, unknown>).sms_enabled = 'yes';
    document.sims[1]!.customer = 'nope';
    document.sims[0]!.status = 'lost';
    (document.data_bundles[0] as Record<string, unknown>).colour = 'red';
    document.devices[1]!.owner = 'nobody@example.com';
    document.users.push({ ...document.users[0]! });
    // customers[0] (top) and data_bundles[0] (b1) fail their own checks: what refers to them is not reported again.
    await expectRefused(document, [
      'customers[0] (id top): sms_enabled must be true or false',
      'users[2] (id u1): id "u1" is already used by users[0] (id u1)',
      'data_bundles[0] (id b1): unknown field "colour"',
      'sims[0] (id 1001): status must be one of active, inactive, suspended, cancelled, stock, dispatched, trial',
      'sims[1] (id 1002): customer "nope" does not exist',
      'devices[1] (iccid 8944500000000008002): owner "nobody@example.com" is not the e-mail of an account',
    ]);
  });

  it('keeps the first 1,000 problems in document order and counts the rest', async () => {
    const document = smallDocument() as Document;
    const sim = document.sims[2]!;
    document.sims = Array.from({ length: 1500 }, (_, index) => ({ ...sim, id: 5001 + index, iccid: String(5001 + index), msisdn: null, customer: 'nope' })) as unknown as Document['sims'];
    document.users[1]!.customer = 'gone';
    const error = (await loadSeedDocument(document, { client, tableName }).catch((caught: unknown) => caught)) as SeedValidationError;
    expect([error.total, error.problems.length, error.problems[0], error.problems[1], error.problems.at(-1)]).toEqual([
      1501,
      1000,
      'users[1] (id u2): customer "gone" does not exist',
      'sims[0] (id 5001): customer "nope" does not exist',
      'sims[998] (id 5999): customer "nope" does not exist',
    ]);
    expect(error.message.split('\n').slice(-2)).toEqual(['  - sims[48] (id 5049): customer "nope" does not exist', '  ... and 1451 more']);
    expect(error.message.split('\n')[0]).toBe('Seed document refused (1501 problems):');
    expect(await scanAll(client, tableName)).toEqual([]);
  });

  it.each([[[]], [null], ['customers'], [42]])('refuses %j as a document', async (document) => {
    await expectRefused(document, ['the document must be a JSON object']);
  });

  it('accepts the same customer name in different customer groups', () => {
    const document = smallDocument();
    document.customers.push({ id: 'other-mid', name: 'Top Mid', parent: 'other', sms_enabled: true });
    expect(parseSeedDocument(document).customers).toHaveLength(5);
  });

  it('ignores top-level keys that start with $, and accepts absent or null sections', () => {
    expect(parseSeedDocument({ $schema: 'https://example.com/seed.json', customers: null, sims: [] })).toEqual({
      customers: [], users: [], bearer_tokens: [], api_keys: [], data_bundles: [], sims: [], plans: [], stock: [], accounts: [], devices: [],
    });
  });
});
