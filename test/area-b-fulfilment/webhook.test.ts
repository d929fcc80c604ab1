import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, describe, expect, it } from 'vitest';
import { key } from '../../shared/db/keys';
import { documents, readOrder, readStock, resetStock, serviceToken } from '../area-b/support/checkout-api';
import { useShopRuntime } from '../support/shop-runtime';
import { testSqsClient } from '../support/resources';
import { readOutbox } from './support/outbox';
import { placeOrder, readAccount, readDevice, readEffects, readUnit, smsMessages, waitForQueueIdle, waitForStatus, type PlacedOrder } from './support/shop';
import { postToWebhook, sendEvent, signature, stripeEvent, stripeId } from './support/stripe-events';

const seed = {
  plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
  stock: [],
};

const db = documents();
const sqs = testSqsClient();
const received = { status: 200, contentType: 'application/json', body: { received: true } };
const invalidSignature = {
  status: 400,
  contentType: 'application/json',
  body: { detail: 'The Stripe-Signature header is missing or does not match the body.', code: 'invalid_signature' },
};

const { runtime, stripe } = useShopRuntime(seed, { db });

afterAll(() => {
  sqs.destroy();
});

const outbox = () => runtime.env.EMAIL_OUTBOX_DIR!;
const queueIdle = () => waitForQueueIdle(sqs, runtime.queues.fulfilment.url);

const buyEsim = (email: string, extra: Record<string, unknown> = {}) =>
  placeOrder(runtime, stripe, 'esim', { cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }], customer_email: email, customer_country: 'GB', ...extra });

const facts = (order: PlacedOrder) => ({ orderId: order.orderId, paymentIntentId: order.paymentIntentId, amount: order.amount });

/** Asserts that nothing of fulfilment happened to a pending order that holds `iccid`. */
const expectUntouched = async (order: PlacedOrder, email: string, iccid: string) => {
  await queueIdle();
  expect(await readOrder(db, runtime.tableName, order.orderId)).toMatchObject({ status: 'pending', held_units: [{ kind: 'esim', iccid }] });
  expect(await readUnit(db, runtime.tableName, 'esim', iccid)).toMatchObject({ held_by: order.orderId });
  expect(await readUnit(db, runtime.tableName, 'esim', iccid)).not.toHaveProperty('assigned_order');
  expect(await readDevice(db, runtime.tableName, iccid)).toBeUndefined();
  expect(await readAccount(db, runtime.tableName, email)).toBeUndefined();
  expect(await readEffects(db, runtime.tableName, order.orderId)).toEqual({});
  expect(readOutbox(outbox(), order.orderId)).toEqual([]);
};

describe('POST /api/v1/webhooks/stripe: signature', () => {
  it('answers 400 invalid_signature and does nothing for a missing, forged, stale or malformed signature or a changed body', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009601']);
    const order = await buyEsim('forged@example.com');
    const payload = stripeEvent('payment_intent.succeeded', facts(order));
    const changed = payload.replace(`"amount":${order.amount}`, `"amount":${order.amount + 1}`);
    const attempts: Array<[string, string, string | undefined]> = [
      ['no header', payload, undefined],
      ['another secret', payload, signature(payload, { secret: 'whsec_someone_else' })],
      ['six minutes old', payload, signature(payload, { timestamp: Math.floor(Date.now() / 1000) - 360 })],
      ['an hour in the future', payload, signature(payload, { timestamp: Math.floor(Date.now() / 1000) + 3_600 })],
      ['changed body', changed, signature(payload)],
      ['malformed header', payload, 't=1,v1=00'],
      ['bearer token instead', payload, `Bearer ${serviceToken}`],
    ];
    for (const [name, body, header] of attempts) {
      expect(await postToWebhook(runtime.baseUrl, body, header), name).toEqual(invalidSignature);
    }
    await expectUntouched(order, 'forged@example.com', '8944500000000009601');
  });

  it('needs no service token: a correctly signed event without Authorization is taken', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009602']);
    const order = await buyEsim('signed@example.com');
    const payload = stripeEvent('payment_intent.succeeded', facts(order));
    expect(await postToWebhook(runtime.baseUrl, payload, signature(payload))).toEqual(received);
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');
  });

  it('verifies the raw bytes of a body that API Gateway passes base64-encoded', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009603']);
    const order = await buyEsim('binary@example.com');
    const payload = stripeEvent('payment_intent.succeeded', facts(order)).replace('"livemode":false', '"livemode":false,"note":"Zo\u00eb \u2713 \u00a3"');
    const bytes = Buffer.from(payload, 'utf8');
    expect(await postToWebhook(runtime.baseUrl, bytes, signature(payload), 'application/octet-stream')).toEqual(received);
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');
  });
});

describe('POST /api/v1/webhooks/stripe: event types', () => {
  it('acknowledges and ignores other event types and payment events without an order id', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009604']);
    const order = await buyEsim('ignored@example.com');
    expect(await sendEvent(runtime.baseUrl, 'charge.refunded', facts(order))).toEqual(received);
    expect(await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', { ...facts(order), orderId: undefined })).toEqual(received);
    await expectUntouched(order, 'ignored@example.com', '8944500000000009604');
  });
});

describe('exactly once through the queue', () => {
  it('fulfils an event delivered several times (twice at once, then again) exactly once', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009605']);
    const order = await buyEsim('twice@example.com', { customer_phone: '+447700900801', sms_opt_in: true });
    const payload = stripeEvent('payment_intent.succeeded', facts(order));
    const answers = await Promise.all([
      postToWebhook(runtime.baseUrl, payload, signature(payload)),
      postToWebhook(runtime.baseUrl, payload, signature(payload)),
    ]);
    expect(answers).toEqual([received, received]);
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');
    expect(await postToWebhook(runtime.baseUrl, payload, signature(payload))).toEqual(received);
    await queueIdle();

    expect(readOutbox(outbox(), order.orderId).map((mail) => mail.headers.subject)).toEqual([`Your receipt for order ${order.orderId}`]);
    expect(await smsMessages(runtime.smsSimulatorUrl, order.orderId)).toHaveLength(1);
    expect(await readDevice(db, runtime.tableName, '8944500000000009605')).toMatchObject({ owner: 'twice@example.com', order_id: order.orderId });
    const effects = await readEffects(db, runtime.tableName, order.orderId);
    expect(Object.fromEntries(Object.entries(effects).map(([name, effect]) => [name, effect.status]))).toEqual({
      stock: 'done',
      account: 'done',
      devices: 'done',
      receipt_email: 'done',
      sms: 'done',
    });
    expect(await readOrder(db, runtime.tableName, order.orderId)).toMatchObject({ status: 'fulfilled' });
  });
});

describe('payment failed or cancelled', () => {
  it('marks the order payment_failed and returns its hold at once: a new checkout can take the unit', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009701']);
    const failed = await buyEsim('declined@example.com');
    expect(await sendEvent(runtime.baseUrl, 'payment_intent.payment_failed', facts(failed))).toEqual(received);
    const order = await waitForStatus(db, runtime.tableName, failed.orderId, 'payment_failed');
    expect(order.failure_reason).toBe('payment_failed');
    expect(await readUnit(db, runtime.tableName, 'esim', '8944500000000009701')).toEqual({
      ...key.stockUnit('esim', '8944500000000009701'),
      type: 'stock_unit',
      iccid: '8944500000000009701',
      kind: 'esim',
    });
    const next = await buyEsim('next@example.com');
    expect((await readOrder(db, runtime.tableName, next.orderId))!.held_units).toEqual([{ kind: 'esim', iccid: '8944500000000009701' }]);
  });

  it('fulfils a payment that succeeds after a failed attempt, with a free unit when its own was taken meanwhile', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009702']);
    const retried = await buyEsim('retry@example.com');
    await sendEvent(runtime.baseUrl, 'payment_intent.payment_failed', facts(retried));
    await waitForStatus(db, runtime.tableName, retried.orderId, 'payment_failed');
    const other = await buyEsim('other@example.com'); // takes 9702
    await db.send(
      new PutCommand({
        TableName: runtime.tableName,
        Item: { ...key.stockUnit('esim', '8944500000000009703'), type: 'stock_unit', iccid: '8944500000000009703', kind: 'esim' },
      }),
    );
    await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', facts(retried));
    const order = await waitForStatus(db, runtime.tableName, retried.orderId, 'fulfilled');
    expect(order.held_units).toEqual([{ kind: 'esim', iccid: '8944500000000009703' }]);
    expect(await readDevice(db, runtime.tableName, '8944500000000009703')).toMatchObject({ owner: 'retry@example.com' });
    expect(await readUnit(db, runtime.tableName, 'esim', '8944500000000009702')).toMatchObject({ held_by: other.orderId });
  });

  it('flags a payment that succeeds after a failed attempt for review when no unit is left', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009704']);
    const late = await buyEsim('late@example.com');
    await sendEvent(runtime.baseUrl, 'payment_intent.payment_failed', facts(late));
    await waitForStatus(db, runtime.tableName, late.orderId, 'payment_failed');
    const other = await buyEsim('taker@example.com');
    await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', facts(late));
    const order = await waitForStatus(db, runtime.tableName, late.orderId, 'review_required');
    expect(order.review_reason).toBe(
      'stock_unavailable: 1 esim unit(s) held for the order were taken meanwhile and no free unit is left',
    );
    expect(await readUnit(db, runtime.tableName, 'esim', '8944500000000009704')).toMatchObject({ held_by: other.orderId });
    expect(readOutbox(outbox(), late.orderId)).toEqual([]);
    expect(await readAccount(db, runtime.tableName, 'late@example.com')).toBeUndefined();
  });

  it('marks a cancelled payment cancelled, returns its hold, and sends a success that follows to review', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009705']);
    const cancelled = await buyEsim('cancel@example.com');
    expect(await sendEvent(runtime.baseUrl, 'payment_intent.canceled', facts(cancelled))).toEqual(received);
    expect(await waitForStatus(db, runtime.tableName, cancelled.orderId, 'cancelled')).toMatchObject({ failure_reason: 'payment_cancelled' });
    expect(await readUnit(db, runtime.tableName, 'esim', '8944500000000009705')).not.toHaveProperty('held_by');
    await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', facts(cancelled));
    expect(await waitForStatus(db, runtime.tableName, cancelled.orderId, 'review_required')).toMatchObject({
      review_reason: 'payment succeeded for an order whose payment was cancelled',
    });
    expect(await readDevice(db, runtime.tableName, '8944500000000009705')).toBeUndefined();
  });

  it('ignores a failure that arrives after the success', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009706']);
    const order = await buyEsim('paid@example.com');
    await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', facts(order));
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');
    await sendEvent(runtime.baseUrl, 'payment_intent.payment_failed', facts(order));
    await queueIdle();
    expect(await readOrder(db, runtime.tableName, order.orderId)).toMatchObject({ status: 'fulfilled' });
    expect(await readUnit(db, runtime.tableName, 'esim', '8944500000000009706')).toMatchObject({ assigned_order: order.orderId });
  });
});

describe('the amount is checked against the order', () => {
  it('flags an amount, currency or payment intent that differs from the order for review, and provisions nothing', async () => {
    await resetStock(db, runtime.tableName, 'esim', ['8944500000000009801', '8944500000000009802', '8944500000000009803']);
    const cases = [
      { email: 'short@example.com', change: (order: PlacedOrder) => ({ ...facts(order), amount: order.amount - 1 }), reason: (order: PlacedOrder) => `amount ${order.amount - 1} differs from the order's amount_total_pence ${order.amount}` },
      { email: 'euro@example.com', change: (order: PlacedOrder) => ({ ...facts(order), currency: 'eur' }), reason: () => 'currency "eur" differs from the order\'s gbp' },
      { email: 'intent@example.com', change: (order: PlacedOrder) => ({ ...facts(order), paymentIntentId: 'pi_not_this_order' }), reason: (order: PlacedOrder) => `payment intent pi_not_this_order is not the order's ${order.paymentIntentId}` },
    ];
    for (const { email, change, reason } of cases) {
      const order = await buyEsim(email);
      const held = (await readOrder(db, runtime.tableName, order.orderId))!.held_units[0]!.iccid;
      expect(await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', change(order))).toEqual(received);
      expect(await waitForStatus(db, runtime.tableName, order.orderId, 'review_required')).toMatchObject({ review_reason: reason(order) });
      expect(await readUnit(db, runtime.tableName, 'esim', held)).toMatchObject({ held_by: order.orderId });
      expect(await readUnit(db, runtime.tableName, 'esim', held)).not.toHaveProperty('assigned_order');
      expect(await readDevice(db, runtime.tableName, held)).toBeUndefined();
      expect(await readAccount(db, runtime.tableName, email)).toBeUndefined();
      expect(readOutbox(outbox(), order.orderId)).toEqual([]);
      // The right event later changes nothing: a person decides.
      await sendEvent(runtime.baseUrl, 'payment_intent.succeeded', facts(order));
      await queueIdle();
      expect(await readOrder(db, runtime.tableName, order.orderId)).toMatchObject({ status: 'review_required' });
    }
    expect((await readStock(db, runtime.tableName, 'esim')).filter((unit) => unit.assigned_order)).toEqual([]);
  });
});

describe('configuration', () => {
  it('refuses events with 503 when no webhook secret is configured', async () => {
    const saved = process.env.STRIPE_WEBHOOK_SECRET;
    delete process.env.STRIPE_WEBHOOK_SECRET;
    try {
      const payload = stripeEvent('payment_intent.succeeded', { paymentIntentId: stripeId('pi'), amount: 100, orderId: 'x' });
      expect(await postToWebhook(runtime.baseUrl, payload, signature(payload))).toEqual({
        status: 503,
        contentType: 'application/json',
        body: { detail: 'The Stripe webhook is not configured in this environment.', code: 'webhook_not_configured' },
      });
    } finally {
      process.env.STRIPE_WEBHOOK_SECRET = saved;
    }
  });
});
