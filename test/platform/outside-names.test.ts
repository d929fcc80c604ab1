import { describe, expect, it } from 'vitest';
import { decodeStripeForm, FormSyntaxError } from '../../local/stripe-emulator/form';
import { IntentStore } from '../../local/stripe-emulator/intents';
import { prettyLine } from '../../local/pretty-logs';
import { lambdaMessageAttributes } from '../../local/sqs-event';
import { awsRefusalDetail } from '../../shared/adapters/sms-provider/aws-sms-provider';
import { vatRateBasisPoints } from '../../shared/checkout/vat-rates';
import { formatLine } from '../../shared/observability/logger';
import { prefixOf } from '../../shared/sim-lists/layout';
import { parseDeliveryEvent } from '../../shared/sms/delivery-events';

/**
 * Issue #31, point 1: a name that came from outside is data, never a property. Each lookup or
 * copy by such a name (a country, an SMS network's error class, a log field, a message
 * attribute, a form parameter, a test card, a status) goes through a Map, Object.hasOwn, a
 * defined (not assigned) entry or an object without prototype, so `constructor`, `toString` and
 * `__proto__` are plain unknown or plain valid names.
 */
const prototypeNames = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'isPrototypeOf'];

describe('names from outside are data', () => {
  it('gives a country named like a prototype member no VAT rate (0), as any other unknown country', () => {
    expect(prototypeNames.map(vatRateBasisPoints)).toEqual(prototypeNames.map(() => 0));
    expect([vatRateBasisPoints('GB'), vatRateBasisPoints('FI')]).toEqual([2000, 2550]);
  });

  it('words an SMS network error class named like a prototype member as an unknown refusal', () => {
    expect(awsRefusalDetail({ name: 'constructor', $metadata: { httpStatusCode: 400 } })).toBe('the SMS network refused the message (constructor)');
    expect(awsRefusalDetail({ name: 'toString', $metadata: { httpStatusCode: 503 } })).toBe('the SMS network failed; retry later (toString)');
  });

  it('keeps a delivery event context entry named __proto__ as an entry', () => {
    const event = parseDeliveryEvent('{"eventType":"TEXT_DELIVERED","messageId":"m1","context":{"__proto__":"x","message_id":"mine","constructor":"c"}}');
    expect(Object.entries(event.context)).toEqual([['__proto__', 'x'], ['message_id', 'mine'], ['constructor', 'c']]);
    expect(Object.getPrototypeOf(event.context)).toBe(Object.prototype);
  });

  it('logs a field named __proto__ as a field, and one named constructor', () => {
    const fields = JSON.parse('{"body":{"__proto__":{"polluted":true},"constructor":"c","api_key":"k"}}') as Record<string, unknown>;
    const line = JSON.parse(formatLine('INFO', 'm', fields)) as { body: Record<string, unknown> };
    expect(Object.entries(line.body)).toEqual([['__proto__', { polluted: true }], ['constructor', 'c'], ['api_key', '[redacted]']]);
  });

  it('passes a message attribute named __proto__ as an own attribute, as Lambda parses it', () => {
    const attributes = lambdaMessageAttributes(JSON.parse('{"__proto__":{"DataType":"String","StringValue":"x"},"constructor":{"DataType":"String","StringValue":"y"}}'));
    expect(Object.keys(attributes)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(attributes, '__proto__')?.value).toMatchObject({ stringValue: 'x', dataType: 'String' });
    expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
  });

  it('decodes a Stripe form whose names are __proto__ or constructor as ordinary parameters, never touching Object.prototype', () => {
    try {
      const form = decodeStripeForm('__proto__[polluted]=1&constructor[prototype][polluted]=2&metadata[__proto__]=3&metadata[toString]=4');
      expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
      expect(JSON.parse(JSON.stringify(form))).toEqual(JSON.parse('{"__proto__":{"polluted":"1"},"constructor":{"prototype":{"polluted":"2"}},"metadata":{"__proto__":"3","toString":"4"}}'));
    } finally {
      delete (Object.prototype as { polluted?: unknown }).polluted;
    }
  });

  it('refuses a Stripe form list index above 9,999 instead of making a list of that length', () => {
    expect(() => decodeStripeForm('payment_method_types[4294967294]=card')).toThrow(FormSyntaxError);
    expect(decodeStripeForm('payment_method_types[1]=card').payment_method_types).toEqual([undefined, 'card']);
  });

  it('confirms no payment with a payment method named like a prototype member: no such PaymentMethod', () => {
    const store = new IntentStore();
    const { intent } = store.create({ amount: 1440, currency: 'gbp', metadata: {} });
    for (const name of ['constructor', 'toString', 'valueOf']) {
      expect(() => store.confirm(intent.id, name)).toThrow(expect.objectContaining({ status: 404, body: expect.objectContaining({ code: 'resource_missing' }) }));
    }
    expect(store.get(intent.id).status).toBe('requires_payment_method');
  });

  it('lists a SIM with a status named like a prototype member under the unknown status', () => {
    expect(prototypeNames.map((status) => prefixOf('g', 'g', status))).toEqual(prototypeNames.map(() => 'Dx'));
    expect(prefixOf('g', 'h', 'active')).toBe('Ia');
  });

  it('paints a log level named like a prototype member as an unknown level', () => {
    expect(prettyLine('{"level":"constructor","message":"m","timestamp":0}', true)).not.toContain('function');
  });
});
