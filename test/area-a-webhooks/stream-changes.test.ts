import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { eventFor, lifecycleChanges } from '../../shared/webhooks/stream-changes';

/**
 * Which lifecycle events a change of the table stands for (shared/webhooks/stream-changes.ts),
 * on records shaped as Lambda hands them over (the local reader's are checked end to end in
 * delivery.test.ts).
 */

const sim = {
  PK: 'SIM#1', SK: 'SIM', type: 'sim', id: 1, iccid: '8944500000000000001', msisdn: null, status: 'active', connection_status: 'active',
  customer_id: 'leaf', customer_name: 'Leaf Ltd', customer_path: ['top', 'leaf'], tariff_name: null, data_used_mb: '1.00',
  data_overage_mb: '0.00', base_cost: '5.00', overage_cost: '0.50', data_bundle: null, updated_at: '2026-11-25T12:00:00+00:00',
  updated_at_ms: Date.parse('2026-11-25T12:00:00Z'),
};
const token = {
  PK: 'TOKEN#abc', SK: 'TOKEN', type: 'bearer_token', prefix: 'abc', secret_hash: 'f'.repeat(64), user_id: 'u1', revoked: false,
  user_active: true, user_roles: ['developer'], user_customer_id: 'leaf',
};

const record = (eventName: 'INSERT' | 'MODIFY' | 'REMOVE', newImage?: object, oldImage?: object, eventID = 'e1'): DynamoDBRecord =>
  ({
    eventID,
    eventName,
    dynamodb: {
      ApproximateCreationDateTime: 1_764_072_000,
      ...(newImage ? { NewImage: marshall(newImage, { removeUndefinedValues: true }) } : {}),
      ...(oldImage ? { OldImage: marshall(oldImage, { removeUndefinedValues: true }) } : {}),
      SequenceNumber: '100',
    },
  }) as DynamoDBRecord;

const summary = (r: DynamoDBRecord) => lifecycleChanges(r).map((change) => [change.type, change.customerId]);

describe('lifecycle changes of a stream record', () => {
  it('makes line.suspended / line.activated when a SIM status becomes suspended / active, with the SIM relative to the subscriber', () => {
    const suspended = lifecycleChanges(record('MODIFY', { ...sim, status: 'suspended' }, sim));
    expect(suspended.map((change) => change.type)).toEqual(['line.suspended']);
    const [change] = suspended;
    expect(change!.customerPath).toEqual(['top', 'leaf']);
    expect(eventFor(change!, 'top')).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: 'line.suspended',
      timestamp: '2025-11-25T12:00:00+00:00',
      data: expect.objectContaining({ id: 1, status: 'suspended', group: 'Leaf Ltd', customer_name: 'Leaf Ltd' }),
    });
    expect(eventFor(change!, 'leaf').data).toMatchObject({ group: null });
    expect(summary(record('MODIFY', sim, { ...sim, status: 'inactive' }))).toEqual([['line.activated', 'leaf']]);
    expect(summary(record('INSERT', sim))).toEqual([['line.activated', 'leaf']]);
  });

  it('makes line.resumed beside line.activated for a suspended SIM made active again, and line.cancelled for a SIM cancelled (issue #33)', () => {
    expect(summary(record('MODIFY', sim, { ...sim, status: 'suspended' }))).toEqual([['line.activated', 'leaf'], ['line.resumed', 'leaf']]);
    const [cancelled] = lifecycleChanges(record('MODIFY', { ...sim, status: 'cancelled' }, sim));
    expect(eventFor(cancelled!, 'top')).toMatchObject({ type: 'line.cancelled', data: { id: 1, status: 'cancelled', group: 'Leaf Ltd' } });
    expect(summary(record('INSERT', { ...sim, status: 'cancelled' }))).toEqual([['line.cancelled', 'leaf']]);
  });

  it('makes action.completed / action.failed when a SIM action leaves pending, with the action as data, to the SIM owner (issue #33)', () => {
    const action = {
      PK: 'SIM#1', SK: 'ACTION#act_019a7f3c2b1d8e4f6a0b2c9d7e5f', type: 'sim_action', action_id: 'act_019a7f3c2b1d8e4f6a0b2c9d7e5f', sim_id: 1,
      iccid: sim.iccid, action: 'suspend', from_status: 'active', target_status: 'suspended', status: 'pending', reason: null,
      requested_at: '2026-11-25T12:00:00+00:00', requested_at_ms: 1, completed_at: null, failure: null, requested_by: 'u1',
      customer_id: 'leaf', customer_path: ['top', 'leaf'],
    };
    const completed = { ...action, status: 'completed', completed_at: '2026-11-25T12:00:02+00:00' };
    const [change] = lifecycleChanges(record('MODIFY', completed, action));
    expect([change!.customerPath, eventFor(change!, 'top')]).toEqual([
      ['top', 'leaf'],
      {
        id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
        type: 'action.completed',
        timestamp: '2025-11-25T12:00:00+00:00',
        data: {
          action_id: action.action_id, sim: 1, iccid: sim.iccid, action: 'suspend', status: 'completed', reason: null,
          requested_at: action.requested_at, completed_at: completed.completed_at, failure: null,
        },
      },
    ]);
    const failure = { code: 'superseded', detail: 'A record of the operator set the SIM to inactive before the action was confirmed.' };
    expect(summary(record('MODIFY', { ...action, status: 'failed', failure }, action))).toEqual([['action.failed', 'leaf']]);
    // Its writing (pending), a repeat of its end and its removal make nothing.
    expect(summary(record('INSERT', action))).toEqual([]);
    expect(summary(record('MODIFY', completed, completed))).toEqual([]);
    expect(summary(record('REMOVE', undefined, completed))).toEqual([]);
  });

  it('makes nothing for a status that is neither, an unchanged status or a removal', () => {
    expect(summary(record('MODIFY', { ...sim, status: 'trial' }, sim))).toEqual([]);
    expect(summary(record('MODIFY', { ...sim, connection_status: 'inactive' }, sim))).toEqual([]);
    expect(summary(record('REMOVE', undefined, sim))).toEqual([]);
    expect(summary(record('INSERT', { ...sim, status: 'stock' }))).toEqual([]);
  });

  it('makes nothing for a status that is one of Object.prototype\'s names (a status is looked up as data)', () => {
    for (const status of ['constructor', 'toString', 'valueOf', 'hasOwnProperty']) {
      expect(summary(record('MODIFY', { ...sim, status }, sim))).toEqual([]);
    }
  });

  it('makes usage.updated with iccid, usage and cost when usage or cost figures change', () => {
    const [change] = lifecycleChanges(record('MODIFY', { ...sim, data_used_mb: '12.5' }, sim));
    expect(eventFor(change!, 'top')).toMatchObject({
      type: 'usage.updated',
      data: {
        iccid: sim.iccid,
        usage: { data_used_mb: '12.50', data_overage_mb: '0.00' },
        cost: { currency: 'GBP', base_cost: '£5.00', overage_cost: '£0.50', total_cost: '£5.50' },
      },
    });
    expect(summary(record('MODIFY', { ...sim, status: 'suspended', overage_cost: '1.00' }, sim))).toEqual([
      ['line.suspended', 'leaf'],
      ['usage.updated', 'leaf'],
    ]);
  });

  it('makes identity.rotated for an issued or revoked credential and identity.verified for its first use, never secret material', () => {
    const issued = lifecycleChanges(record('INSERT', token));
    expect(issued.map((change) => eventFor(change, 'leaf'))).toEqual([
      { id: expect.any(String), type: 'identity.rotated', timestamp: expect.any(String), data: { kind: 'bearer_token', prefix: 'abc', user: 'u1', action: 'issued' } },
    ]);
    expect(issued[0]!.customerPath).toBeUndefined();
    expect(JSON.stringify(eventFor(issued[0]!, 'leaf'))).not.toContain('f'.repeat(64));
    const revoked = lifecycleChanges(record('MODIFY', { ...token, revoked: true }, token));
    expect(revoked.map((change) => [change.type, change.type === 'identity.rotated' && change.dataFor('leaf').action])).toEqual([['identity.rotated', 'revoked']]);
    const verified = lifecycleChanges(record('MODIFY', { ...token, verified_at: '2026-11-25T12:00:00Z' }, token));
    expect(verified.map((change) => [change.type, change.dataFor('leaf')])).toEqual([
      ['identity.verified', { kind: 'bearer_token', prefix: 'abc', user: 'u1', action: 'verified' }],
    ]);
    const apiKey = { PK: 'APIKEY#k', SK: 'APIKEY', type: 'api_key', prefix: 'k', secret_hash: 'e'.repeat(64), customer_id: 'leaf', customer_path: ['top', 'leaf'], revoked: false };
    const [keyIssued] = lifecycleChanges(record('INSERT', apiKey));
    expect([keyIssued!.customerPath, keyIssued!.dataFor('top')]).toEqual([['top', 'leaf'], { kind: 'api_key', prefix: 'k', user: null, action: 'issued' }]);
    expect(summary(record('INSERT', { ...token, revoked: true }))).toEqual([]);
    expect(summary(record('MODIFY', { ...token, user_active: false }, token))).toEqual([]);
    // A seeded credential (inserted already marked) is issued, not verified.
    expect(summary(record('INSERT', { ...token, verified_at: '2026-11-25T12:00:00Z' }))).toEqual([['identity.rotated', 'leaf']]);
  });

  it('gives the same event ids when the same record is read again, and different ones to different records or types', () => {
    const first = lifecycleChanges(record('MODIFY', { ...sim, status: 'suspended', data_used_mb: '2.00' }, sim, 'abc'));
    const again = lifecycleChanges(record('MODIFY', { ...sim, status: 'suspended', data_used_mb: '2.00' }, sim, 'abc'));
    const other = lifecycleChanges(record('MODIFY', { ...sim, status: 'suspended', data_used_mb: '2.00' }, sim, 'abd'));
    expect(again.map((change) => change.id)).toEqual(first.map((change) => change.id));
    expect(new Set([...first, ...other].map((change) => change.id)).size).toBe(4);
  });

  it('ignores items of other types (rate-limit counters, orders, subscriptions)', () => {
    expect(summary(record('MODIFY', { PK: 'RATE#u', SK: 'CUSTOMER#c', type: undefined, b0: 1 }, { PK: 'RATE#u', SK: 'CUSTOMER#c' }))).toEqual([]);
    expect(summary(record('INSERT', { PK: 'ORDER#1', SK: 'ORDER', type: 'order', status: 'active' }))).toEqual([]);
  });
});
