import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { logEntries, logLinesOf } from '../support/log-lines';
import { afterAll, describe, expect, it } from 'vitest';
import { documents, readOrder, resetStock } from '../area-b/support/checkout-api';
import { useShopRuntime } from '../support/shop-runtime';
import { testSqsClient } from '../support/resources';
import { placeOrder, readEffects, waitForQueueIdle, waitForStatus, type PlacedOrder } from './support/shop';
import { postToWebhook, signature, stripeEvent, type PaymentEventType } from './support/stripe-events';

/**
 * Issue #10: a signed Stripe event the service cannot act on (a body that is `null`, not
 * JSON, odd field types, ids with characters SQS refuses or of any length) is answered 200
 * and logged once, and nothing reaches the fulfilment queue that its consumer would refuse
 * (it used to be a 500, or a message dead-lettered after five receives).
 */

const seed = {
  plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
  stock: [],
};

const db = documents();
const sqs = testSqsClient();
const received = { status: 200, contentType: 'application/json', body: { received: true } };

const { runtime, stripe } = useShopRuntime(seed, { db });

afterAll(() => {
  sqs.destroy();
});

let unit = 0;
const buyEsim = async (email: string): Promise<PlacedOrder> => {
  unit += 1;
  await resetStock(db, runtime.tableName, 'esim', [`89445000000000096${String(unit).padStart(2, '0')}`]);
  return placeOrder(runtime, stripe, 'esim', { cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }], customer_email: email, customer_country: 'GB' });
};

/** A value that oddEvent writes as arrays nested 20,000 deep (JSON.stringify itself cannot). */
const deep = '<arrays nested 20,000 deep>';

/** The event of stripe-events.ts as an object, changed by `change`, as JSON text. */
const oddEvent = (order: PlacedOrder, change: (event: Record<string, any>) => void, type: PaymentEventType = 'payment_intent.succeeded') => {
  const event = JSON.parse(stripeEvent(type, { orderId: order.orderId, paymentIntentId: order.paymentIntentId, amount: order.amount }));
  change(event);
  return JSON.stringify(event).replaceAll(JSON.stringify(deep), `${'['.repeat(20_000)}${']'.repeat(20_000)}`);
};

const deliver = (payload: string) => postToWebhook(runtime.baseUrl, payload, signature(payload));

/** The JSON log lines written while `action` ran (test/support/log-lines.ts). */
const logsOf = async (action: () => Promise<unknown>) => logEntries(await logLinesOf(action));

const webhookLines = (lines: Array<Record<string, unknown>>) =>
  lines.filter((line) => typeof line.message === 'string' && /stripe event|payment event|unhandled error/.test(line.message));

const deadLetters = async () => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: runtime.queues.fulfilment.deadLetterUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
};

describe('signed bodies that are not events', () => {
  it('answers 200 {received: true} and logs one WARN line for null, a number, an array, a string and bytes that are not JSON', async () => {
    for (const [payload, message] of [
      ['null', 'stripe event ignored: the body is not an event object'],
      ['42', 'stripe event ignored: the body is not an event object'],
      ['[]', 'stripe event ignored: the body is not an event object'],
      ['"evt"', 'stripe event ignored: the body is not an event object'],
      ['{"id":', 'stripe event ignored: the body is not JSON'],
    ] as const) {
      let answer;
      const lines = await logsOf(async () => {
        answer = await deliver(payload);
      });
      expect(answer, payload).toEqual(received);
      expect(webhookLines(lines).map((line) => [line.level, line.message]), payload).toEqual([['WARN', message]]);
    }
  });
});

describe('signed events the service cannot act on', () => {
  const cases: Array<[string, (event: Record<string, any>) => void, string]> = [
    ['id a number', (event) => (event.id = 42), 'stripe event ignored: no usable id or type'],
    ['id with U+FFFE', (event) => (event.id = 'evt_\ufffe'), 'stripe event ignored: no usable id or type'],
    ['id of 10,000 characters', (event) => (event.id = `evt_${'x'.repeat(10_000)}`), 'stripe event ignored: no usable id or type'],
    ['type a number', (event) => (event.type = 5), 'stripe event ignored: no usable id or type'],
    ['data null', (event) => (event.data = null), 'payment event without a usable metadata.order_id ignored'],
    ['data.object an array', (event) => (event.data.object = [event.data.object]), 'payment event without a usable metadata.order_id ignored'],
    ['metadata an array', (event) => (event.data.object.metadata = [event.data.object.metadata]), 'payment event without a usable metadata.order_id ignored'],
    ['order_id with U+FFFF', (event) => (event.data.object.metadata.order_id += '\uffff'), 'payment event without a usable metadata.order_id ignored'],
    ['order_id of 3,000 characters', (event) => (event.data.object.metadata.order_id += 'x'.repeat(3000)), 'payment event without a usable metadata.order_id ignored'],
    ['order_id a number', (event) => (event.data.object.metadata.order_id = 7), 'payment event without a usable metadata.order_id ignored'],
    ['order_id nested deep', (event) => (event.data.object.metadata.order_id = deep), 'payment event without a usable metadata.order_id ignored'],
    ['payment intent id with a lone surrogate', (event) => (event.data.object.id += '\ud800'), 'payment event without a usable payment intent id ignored'],
    ['payment intent id an object', (event) => (event.data.object.id = { id: 'pi_1' }), 'payment event without a usable payment intent id ignored'],
  ];

  it('answers 200 for each, logs it once, queues nothing, and leaves the order pending', async () => {
    const order = await buyEsim('odd-events@example.com');
    for (const [label, change, message] of cases) {
      let answer;
      const lines = await logsOf(async () => {
        answer = await deliver(oddEvent(order, change));
      });
      expect(answer, label).toEqual(received);
      expect(webhookLines(lines).map((line) => [line.level, line.message]), label).toEqual([['WARN', message]]);
    }
    await waitForQueueIdle(sqs, runtime.queues.fulfilment.url);
    expect(await readOrder(db, runtime.tableName, order.orderId)).toMatchObject({ status: 'pending' });
    expect(await readEffects(db, runtime.tableName, order.orderId)).toEqual({});
    expect(await deadLetters()).toBe(0);
  });

  it('ignores an event type that is very long or has odd characters, logging it cut to 200 characters', async () => {
    const order = await buyEsim('odd-type@example.com');
    let answer;
    const lines = await logsOf(async () => {
      answer = await deliver(oddEvent(order, (event) => (event.type = `charge.${'z'.repeat(5000)}\ud800`)));
    });
    expect(answer).toEqual(received);
    expect(webhookLines(lines)).toEqual([
      {
        level: 'INFO',
        message: 'stripe event ignored',
        timestamp: expect.any(String),
        service: 'sim-checkout-service',
        function_name: 'stripe-webhook',
        function_request_id: expect.any(String),
        cold_start: expect.any(Boolean),
        correlation_id: expect.any(String),
        event_id: expect.stringMatching(/^evt_/),
        type: `charge.${'z'.repeat(193)}…`,
      },
    ]);
  });
});

describe('signed payment events with odd values that can still be acted on', () => {
  it('fulfils an event whose unused fields hold U+FFFE, U+FFFF and lone surrogates (they never reach the queue)', async () => {
    const order = await buyEsim('odd-unused@example.com');
    expect(
      await deliver(
        oddEvent(order, (event) => {
          event.data.object.description = 'x\ufffe\uffff\ud800';
          event.data.object.metadata.note = '\udc00';
          event.request = deep;
        }),
      ),
    ).toEqual(received);
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');
  });

  it('sends an amount that is a string as -1 and a currency that is not three letters as xxx: the order is flagged for review, not dead-lettered', async () => {
    const byAmount = await buyEsim('odd-amount@example.com');
    expect(await deliver(oddEvent(byAmount, (event) => (event.data.object.amount_received = String(byAmount.amount))))).toEqual(received);
    const flagged = await waitForStatus(db, runtime.tableName, byAmount.orderId, 'review_required');
    expect(flagged.review_reason).toBe(`amount -1 differs from the order's amount_total_pence ${byAmount.amount}`);

    const byCurrency = await buyEsim('odd-currency@example.com');
    expect(await deliver(oddEvent(byCurrency, (event) => (event.data.object.currency = ['gbp'])))).toEqual(received);
    const other = await waitForStatus(db, runtime.tableName, byCurrency.orderId, 'review_required');
    expect(other.review_reason).toBe('currency "xxx" differs from the order\'s gbp');

    const upper = await buyEsim('upper-currency@example.com');
    expect(await deliver(oddEvent(upper, (event) => {
      event.data.object.currency = 'GBP';
      event.created = 'yesterday';
    }))).toEqual(received);
    await waitForStatus(db, runtime.tableName, upper.orderId, 'fulfilled');
    await waitForQueueIdle(sqs, runtime.queues.fulfilment.url);
    expect(await deadLetters()).toBe(0);
  });

  it('cancels on a canceled event whose amount is odd (the amount only matters for a success)', async () => {
    const order = await buyEsim('odd-cancel@example.com');
    const payload = oddEvent(order, (event) => (event.data.object.amount = { value: 1 }), 'payment_intent.canceled');
    expect(await deliver(payload)).toEqual(received);
    await waitForStatus(db, runtime.tableName, order.orderId, 'cancelled');
  });
});
