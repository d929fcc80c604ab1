import { describe, expect, it } from 'vitest';
import type { AccountItem, OrderItem } from '../../shared/db/items';
import { smsDecision } from '../../shared/fulfilment/sms-rules';

const order = (fields: Partial<OrderItem>): OrderItem =>
  ({ id: 'o', endpoint: 'esim', created_at: '2026-11-22T10:00:00.000Z', ...fields }) as OrderItem;
const account = (fields: Partial<AccountItem>): AccountItem =>
  ({ email: 'a@example.com', account_type: 'traveler', name: null, phone: null, sms_opt_in: false, ...fields }) as AccountItem;

const earlier = '2026-11-22T09:00:00.000Z';
const later = '2026-11-22T11:00:00.000Z';

describe('smsDecision (the SMS rules, one decision per order)', () => {
  it.each([
    ['B1: phone and opt-in on the order', order({ customer_phone: '+1', sms_opt_in: true }), undefined, { to: '+1' }],
    ['B1 rule 1: phone without opt-in', order({ customer_phone: '+1' }), undefined, { to: null, reason: 'no SMS consent on the order or on file' }],
    ['B1 rule 1: opt-in without phone', order({ sms_opt_in: true }), undefined, { to: null, reason: 'no phone number on the order or on file' }],
    ['B1 rule 3: number on file from an earlier order', order({ sms_opt_in: true }), account({ phone: '+2', phone_at: earlier }), { to: '+2' }],
    ['B1 rule 3: number on file since seeding', order({ sms_opt_in: true }), account({ phone: '+2' }), { to: '+2' }],
    ['B1 rule 1: number only from a later order', order({ sms_opt_in: true }), account({ phone: '+2', phone_at: later }), { to: null, reason: 'no phone number on the order or on file' }],
    ['B1 rule 2: consent on file honoured', order({ customer_phone: '+1' }), account({ sms_opt_in: true, sms_opt_in_at: earlier }), { to: '+1' }],
    ['B1 rule 2: explicit false beats consent on file', order({ customer_phone: '+1', sms_opt_in: false }), account({ sms_opt_in: true }), { to: null, reason: 'sms_opt_in is false on the order' }],
    ['B1 rule 2: revocation on file', order({ customer_phone: '+1' }), account({ sms_opt_in: false, sms_opt_in_at: earlier }), { to: null, reason: 'no SMS consent on the order or on file' }],
    ['B1 rule 1: consent only from a later order', order({ customer_phone: '+1' }), account({ sms_opt_in: true, sms_opt_in_at: later }), { to: null, reason: 'no SMS consent on the order or on file' }],
    ['B1: the order phone wins over the one on file', order({ customer_phone: '+1', sms_opt_in: true }), account({ phone: '+2' }), { to: '+1' }],
    ['B2: never', order({ endpoint: 'physical', customer_phone: '+1', sms_opt_in: true }), account({ phone: '+2', sms_opt_in: true }), { to: null, reason: 'physical SIM orders get no SMS' }],
    ['B3: phone and opt-in on the order', order({ endpoint: 'iot', customer_phone: '+1', sms_opt_in: true }), undefined, { to: '+1' }],
    ['B3: consent on file does not count', order({ endpoint: 'iot', customer_phone: '+1' }), account({ sms_opt_in: true }), { to: null, reason: 'sms_opt_in is not true on the order' }],
    ['B3: number on file does not count', order({ endpoint: 'iot', sms_opt_in: true }), account({ phone: '+2' }), { to: null, reason: 'no customer_phone on the order' }],
  ])('%s', (_, given, before, decision) => {
    expect(smsDecision(given, before)).toEqual(decision);
  });
});
