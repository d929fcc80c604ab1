import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seedItems } from '../../local/seed/items';
import { parseSeedDocument } from '../../local/seed/validate';
import { demoDocument, secrets, smallDocument, stringsIn } from './fixtures';

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const now = new Date('2026-11-22T12:00:00.000Z');
const itemsOf = (document: unknown) => seedItems(parseSeedDocument(document), now);
const byKey = (items: Record<string, unknown>[], PK: string, SK: string) => items.find((item) => item.PK === PK && item.SK === SK);

describe('seed items', () => {
  it('turns a document into exactly the items of the data model', () => {
    const bundle = { id: 'b1', allowance_mb: '1024.00', monthly_cost: '50.50', per_sim_access_fee: '1.00', pool_used_mb: '0.30' };
    expect(itemsOf(smallDocument())).toEqual([
      { PK: 'CUSTOMER#top', SK: 'CUSTOMER', GSI1PK: 'CUSTOMER_NAME#Top Ltd', GSI1SK: 'CUSTOMER#top', type: 'customer', id: 'top', name: 'Top Ltd', parent: null, path: ['top'], sms_enabled: true },
      { PK: 'CUSTOMER#mid', SK: 'CUSTOMER', GSI1PK: 'CUSTOMER_NAME#Top Mid', GSI1SK: 'CUSTOMER#mid', type: 'customer', id: 'mid', name: 'Top Mid', parent: 'top', path: ['top', 'mid'], sms_enabled: true },
      { PK: 'CUSTOMER#leaf', SK: 'CUSTOMER', GSI1PK: 'CUSTOMER_NAME#Top Leaf', GSI1SK: 'CUSTOMER#leaf', type: 'customer', id: 'leaf', name: 'Top Leaf', parent: 'mid', path: ['top', 'mid', 'leaf'], sms_enabled: false },
      { PK: 'CUSTOMER#other', SK: 'CUSTOMER', GSI1PK: 'CUSTOMER_NAME#Other plc', GSI1SK: 'CUSTOMER#other', type: 'customer', id: 'other', name: 'Other plc', parent: null, path: ['other'], sms_enabled: true },
      { PK: 'USER#u1', SK: 'USER', type: 'user', id: 'u1', email: 'one@top.example', customer_id: 'top', active: true, roles: ['developer'] },
      { PK: 'USER#u2', SK: 'USER', type: 'user', id: 'u2', email: 'two@other.example', customer_id: 'other', active: false, roles: [] },
      {
        PK: 'TOKEN#tok1', SK: 'TOKEN', GSI1PK: 'USER#u1', GSI1SK: 'TOKEN#tok1', type: 'bearer_token', prefix: 'tok1',
        secret_hash: sha256(secrets.token), user_id: 'u1', revoked: false, user_active: true, user_roles: ['developer'], user_customer_id: 'top',
        verified_at: '2026-11-22T12:00:00.000+00:00',
      },
      {
        PK: 'TOKEN#tok2', SK: 'TOKEN', GSI1PK: 'USER#u2', GSI1SK: 'TOKEN#tok2', type: 'bearer_token', prefix: 'tok2',
        secret_hash: sha256(secrets.otherToken), user_id: 'u2', revoked: true, user_active: false, user_roles: [], user_customer_id: 'other',
        verified_at: '2026-11-22T12:00:00.000+00:00',
      },
      { PK: 'APIKEY#key1', SK: 'APIKEY', type: 'api_key', prefix: 'key1', secret_hash: sha256(secrets.apiKey), customer_id: 'mid', customer_path: ['top', 'mid'], revoked: false, scopes: ['sims:read', 'sms:send'], verified_at: '2026-11-22T12:00:00.000+00:00' },
      { PK: 'BUNDLE#b1', SK: 'BUNDLE', type: 'data_bundle', customer_id: 'top', ...bundle },
      {
        PK: 'SIM#1001', SK: 'SIM', GSI1PK: 'ICCID#8944500000000001001', GSI1SK: 'SIM', type: 'sim', id: 1001, iccid: '8944500000000001001',
        msisdn: '447700900001', status: 'active', connection_status: 'active', customer_id: 'leaf', customer_name: 'Top Leaf',
        customer_path: ['top', 'mid', 'leaf'], tariff_name: 'Pool', data_used_mb: '0.10', data_overage_mb: '0.00', base_cost: '1.00',
        overage_cost: '0.00', data_bundle: bundle, updated_at: '2026-11-20T10:00:00+01:00', updated_at_ms: Date.parse('2026-11-20T09:00:00Z'),
        usage_month: '2026-11',
      },
      {
        PK: 'SIM#1002', SK: 'SIM', GSI1PK: 'ICCID#8944500000000001002', GSI1SK: 'SIM', type: 'sim', id: 1002, iccid: '8944500000000001002',
        msisdn: null, status: 'trial', connection_status: 'inactive', customer_id: 'mid', customer_name: 'Top Mid',
        customer_path: ['top', 'mid'], tariff_name: null, data_used_mb: '0.20', data_overage_mb: '0.00', base_cost: '5.00',
        overage_cost: '0.00', data_bundle: bundle, updated_at: '2026-11-21T00:00:00Z', updated_at_ms: Date.parse('2026-11-21T00:00:00Z'),
        usage_month: '2026-11',
      },
      {
        PK: 'SIM#1003', SK: 'SIM', GSI1PK: 'ICCID#8944500000000001003', GSI1SK: 'SIM', type: 'sim', id: 1003, iccid: '8944500000000001003',
        msisdn: '447700900003', status: 'stock', connection_status: 'inactive', customer_id: 'other', customer_name: 'Other plc',
        customer_path: ['other'], tariff_name: 'IoT 1GB', data_used_mb: '7.77', data_overage_mb: '0.00', base_cost: '5.00',
        overage_cost: '0.00', data_bundle: null, updated_at: '2026-11-19T08:30:00.250-05:00', updated_at_ms: Date.parse('2026-11-19T13:30:00.250Z'),
        usage_month: '2026-11',
      },
      { PK: 'PLAN#TRAVEL-EU-5GB', SK: 'PLAN', type: 'plan', sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' },
      { PK: 'PLAN#IOT-CONTRACT-1GB', SK: 'PLAN', type: 'plan', sku: 'IOT-CONTRACT-1GB', name: 'IoT 1 GB', category: 'iot_contract', published: false, price: null },
      { PK: 'STOCK#esim', SK: 'UNIT#8944500000000009001', type: 'stock_unit', iccid: '8944500000000009001', kind: 'esim' },
      { PK: 'STOCK#physical', SK: 'UNIT#8944500000000009101', type: 'stock_unit', iccid: '8944500000000009101', kind: 'physical' },
      { PK: 'ACCOUNT#sam@example.com', SK: 'ACCOUNT', type: 'account', email: 'Sam@Example.com', account_type: 'traveler', name: 'Sam', phone: '+447700900123', sms_opt_in: true },
      { PK: 'ACCOUNT#ops@initech.example', SK: 'ACCOUNT', type: 'account', email: 'ops@initech.example', account_type: 'business', name: 'Initech', phone: null, sms_opt_in: false },
      { PK: 'DEVICE#8944500000000008001', SK: 'DEVICE', type: 'device', iccid: '8944500000000008001', owner: 'sam@example.com', assigned_to: null },
      { PK: 'DEVICE#8944500000000008002', SK: 'DEVICE', type: 'device', iccid: '8944500000000008002', owner: 'ops@initech.example', assigned_to: 'alex@initech.example' },
      { PK: 'MSISDN#447700900001', SK: 'MSISDN', type: 'msisdn_claim', msisdn: '447700900001', sim_id: 1001, iccid: '8944500000000001001' },
      { PK: 'MSISDN#447700900003', SK: 'MSISDN', type: 'msisdn_claim', msisdn: '447700900003', sim_id: 1003, iccid: '8944500000000001003' },
      // The ICCID items through which the operator feed finds SIMs.
      { PK: 'SIMICCID#8944500000000001001', SK: 'SIM', type: 'sim_iccid', sim_id: 1001, customer_id: 'leaf', customer_path: ['top', 'mid', 'leaf'] },
      { PK: 'SIMICCID#8944500000000001002', SK: 'SIM', type: 'sim_iccid', sim_id: 1002, customer_id: 'mid', customer_path: ['top', 'mid'] },
      { PK: 'SIMICCID#8944500000000001003', SK: 'SIM', type: 'sim_iccid', sim_id: 1003, customer_id: 'other', customer_path: ['other'] },
    ]);
  });

  it('sums pool usage exactly in hundredths, never with binary floating point', () => {
    const document = smallDocument();
    // 0.1 + 0.2 is 0.30000000000000004 in floating point; 0.07 * 3 is 0.21000000000000002.
    document.sims[2]!.data_bundle = 'b1';
    document.sims[2]!.customer = 'top';
    document.sims[0]!.data_used_mb = '0.07';
    document.sims[1]!.data_used_mb = '0.07';
    document.sims[2]!.data_used_mb = '0.07';
    expect(byKey(itemsOf(document), 'BUNDLE#b1', 'BUNDLE')?.pool_used_mb).toBe('0.21');
    expect(byKey(itemsOf(smallDocument()), 'BUNDLE#b1', 'BUNDLE')?.pool_used_mb).toBe('0.30');
    // A sum beyond 15 significant digits (each amount has at most 12 integer digits, a pool's sum more).
    document.sims[0]!.data_used_mb = '999999999999.99';
    document.sims[1]!.data_used_mb = '999999999999.99';
    document.sims[2]!.data_used_mb = '999999999999.99';
    expect(byKey(itemsOf(document), 'BUNDLE#b1', 'BUNDLE')?.pool_used_mb).toBe('2999999999999.97');
  });

  it('gives a bundle without SIMs a pool usage of 0.00', () => {
    const document = smallDocument();
    for (const sim of document.sims) sim.data_bundle = null;
    expect(byKey(itemsOf(document), 'BUNDLE#b1', 'BUNDLE')?.pool_used_mb).toBe('0.00');
  });

  it('stamps a SIM without updated_at with the load time', () => {
    const document = smallDocument();
    delete (document.sims[0] as { updated_at?: string }).updated_at;
    const sim = byKey(itemsOf(document), 'SIM#1001', 'SIM');
    expect([sim?.updated_at, sim?.updated_at_ms]).toEqual(['2026-11-22T12:00:00.000+00:00', now.getTime()]);
  });

  it('applies the documented defaults to fields left out', () => {
    const items = itemsOf({
      customers: [{ id: 'c', name: 'C', sms_enabled: true }],
      bearer_tokens: [],
      users: [{ id: 'u', email: 'u@c.example', customer: 'c', active: true, roles: ['developer'] }],
      api_keys: [{ key: 'devkey_k_x', customer: 'c' }],
      sims: [{
        id: 7, iccid: '7', status: 'active', connection_status: 'active', customer: 'c', data_used_mb: '1',
        data_overage_mb: '0', base_cost: '0', overage_cost: '0', updated_at: '2026-11-20T10:00:00+00:00',
      }],
      accounts: [{ email: 'a@b.example', type: 'consumer' }],
    });
    expect(byKey(items, 'CUSTOMER#c', 'CUSTOMER')).toMatchObject({ parent: null, path: ['c'] });
    expect(byKey(items, 'APIKEY#k', 'APIKEY')).toMatchObject({ revoked: false });
    expect(byKey(items, 'SIM#7', 'SIM')).toMatchObject({ msisdn: null, tariff_name: null, data_bundle: null });
    expect(byKey(items, 'ACCOUNT#a@b.example', 'ACCOUNT')).toMatchObject({ name: null, phone: null, sms_opt_in: false });
  });

  it('puts no plain-text secret of the demo seed into any item', () => {
    const demo = demoDocument();
    const plainTexts = [
      ...(demo.bearer_tokens as { token: string }[]).map((entry) => entry.token),
      ...(demo.api_keys as { key: string }[]).map((entry) => entry.key),
    ];
    const secretParts = plainTexts.map((plain) => plain.split('_').slice(2).join('_'));
    const strings = stringsIn(itemsOf(demo));
    expect(plainTexts.length).toBe(10);
    for (const secret of [...plainTexts, ...secretParts]) {
      expect(strings.filter((value) => value.includes(secret))).toEqual([]);
    }
  });
});
