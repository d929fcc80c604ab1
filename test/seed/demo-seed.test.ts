import { describe, expect, it } from 'vitest';
import { parseSeedDocument } from '../../local/seed/validate';
import { demoDocument } from './fixtures';

const demo = parseSeedDocument(demoDocument());
const distinct = <T>(values: T[]) => [...new Set(values)].sort();

describe('the demo seed', () => {
  it('starts with the working pair of Acme: an active developer token and an unrevoked Acme key', () => {
    const [token] = demo.bearer_tokens;
    const [apiKey] = demo.api_keys;
    const user = demo.users.find((candidate) => candidate.id === token?.user);
    expect([token?.revoked, user?.active, user?.roles.includes('developer'), user?.customer]).toEqual([false, true, true, 'acme']);
    expect([apiKey?.revoked, apiKey?.customer]).toEqual([false, 'acme']);
    expect(token?.token).toMatch(/^bearer_demo01_[A-Za-z0-9]{32,}$/);
    expect(apiKey?.key).toMatch(/^devkey_demo01_[A-Za-z0-9]{32,}$/);
  });

  it('has a three-level tree, a sibling, an unrelated group and a customer without SMS', () => {
    expect(demo.customers.map((customer) => [customer.id, customer.parent, customer.sms_enabled])).toEqual([
      ['acme', null, true],
      ['acme-north', 'acme', true],
      ['acme-north-depot', 'acme-north', true],
      ['acme-south', 'acme', false],
      ['globex', null, true],
    ]);
  });

  it('has the users and credentials that provoke each authentication outcome', () => {
    expect(demo.users.map((user) => [user.customer, user.active, user.roles.includes('developer')])).toEqual([
      ['acme', true, true], ['acme', false, true], ['acme', true, false], ['acme-north', true, true], ['globex', true, true],
    ]);
    expect(demo.bearer_tokens.filter((token) => token.revoked).map((token) => token.user)).toEqual(['u-ada']);
    expect(demo.api_keys.map((apiKey) => [apiKey.customer, apiKey.revoked])).toEqual([
      ['acme', false], ['acme-north', false], ['globex', false], ['acme', true],
    ]);
  });

  it('has SIMs of every status across the tree, on and off the bundle, one without an MSISDN, all recently updated', () => {
    expect(demo.sims).toHaveLength(30);
    expect(distinct(demo.sims.map((sim) => sim.status))).toEqual(['active', 'cancelled', 'dispatched', 'inactive', 'stock', 'suspended', 'trial']);
    expect(distinct(demo.sims.map((sim) => sim.customer))).toEqual(['acme', 'acme-north', 'acme-north-depot', 'acme-south', 'globex']);
    expect(distinct(demo.sims.map((sim) => sim.data_bundle))).toEqual(['b-acme-fleet', null]);
    expect(demo.sims.filter((sim) => sim.msisdn === null).map((sim) => [sim.id, sim.status, sim.customer])).toEqual([[1005, 'active', 'acme']]);
    const reference = Date.parse('2026-11-22T23:59:59Z');
    const ages = demo.sims.map((sim) => (reference - Date.parse(sim.updated_at!)) / 86_400_000);
    expect([Math.min(...ages) >= 0, Math.max(...ages) < 7]).toEqual([true, true]);
  });

  it('has plans of every category, an unpublished plan and plans without a price', () => {
    expect(distinct(demo.plans.map((plan) => plan.category))).toEqual([
      'business_topup', 'business_travel', 'iot_contract', 'physical', 'travel', 'travel_topup',
    ]);
    expect(demo.plans.filter((plan) => !plan.published).map((plan) => plan.sku)).toEqual(['TRAVEL-US-3GB', 'IOT-CONTRACT-LEGACY']);
    expect(demo.plans.filter((plan) => plan.price === null).map((plan) => plan.sku)).toEqual([
      'TRAVEL-ASIA-5GB', 'PHYSICAL-SIM-BULK', 'IOT-CONTRACT-CUSTOM',
    ]);
  });

  it('has stock of both kinds, accounts of every type and owned, assigned and unassigned devices', () => {
    expect(demo.stock.filter((unit) => unit.kind === 'esim')).toHaveLength(8);
    expect(demo.stock.filter((unit) => unit.kind === 'physical')).toHaveLength(6);
    expect(demo.accounts.map((account) => account.type).sort()).toEqual(['business', 'consumer', 'reseller', 'traveler']);
    expect(demo.devices.map((device) => [device.owner, device.assigned_to])).toEqual([
      ['sam@example.com', null],
      ['ops@initech.example', 'alex@initech.example'],
      ['ops@initech.example', null],
      ['casey@example.com', null],
    ]);
  });
});
