import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { captureLogLines, logEntries, metricLines } from '../support/log-lines';
import { key } from '../../shared/db/keys';
import { EmailNotSentError, type Mailer } from '../../shared/adapters/email/mailer';
import { functionConfigs } from '../../shared/config/function-config';
import { readConfiguration } from '../../shared/config/variables';
import { fulfilmentDeps, type FulfilmentDeps } from '../../shared/fulfilment/deps';
import { OrderBusyError } from '../../shared/fulfilment/lease';
import type { FulfilmentMessage } from '../../shared/fulfilment/message';
import { processPaymentMessage } from '../../shared/fulfilment/process';
import { SmsProviderFailure } from '../../shared/adapters/sms-provider/provider';
import { documents, readOrder, resetStock } from '../area-b/support/checkout-api';
import { eventually } from '../support/eventually';
import { testSqsClient } from '../support/resources';
import { useShopRuntime } from '../support/shop-runtime';
import { readOperationsOutbox, readOutbox } from './support/outbox';
import { placeOrder, readAccount, readDevice, readEffects, readTask, smsMessages, type PlacedOrder } from './support/shop';

const seed = {
  plans: [
    { sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' },
    { sku: 'PHYSICAL-SIM-UK', name: 'Physical SIM', category: 'physical', published: true, price: '9.99' },
    { sku: 'IOT-CONTRACT-1GB', name: 'IoT 1 GB', category: 'iot_contract', published: true, price: '18.00' },
  ],
  stock: [],
};

const db = documents();
const sqs = testSqsClient();

const { runtime, stripe } = useShopRuntime(seed, {
  db,
  prepare: async ({ runtime }) => {
    await resetStock(db, runtime.tableName, 'esim', Array.from({ length: 12 }, (_, index) => `89445000000000061${String(index).padStart(2, '0')}`));
    await resetStock(db, runtime.tableName, 'physical', Array.from({ length: 8 }, (_, index) => `89445000000000062${String(index).padStart(2, '0')}`));
  },
});

afterAll(() => {
  sqs.destroy();
});

afterEach(() => vi.restoreAllMocks());

const outbox = () => runtime.env.EMAIL_OUTBOX_DIR!;

/** The consumer's deps from the runtime's environment, with test overrides (a fault, a failing adapter). */
const depsWith = (overrides: Partial<FulfilmentDeps> = {}): FulfilmentDeps => ({
  ...fulfilmentDeps(readConfiguration(functionConfigs['fulfil-order'], runtime.env)),
  ...overrides,
});

const crashAt = (effect: string, hook: 'afterEffect' | 'afterSend' = 'afterEffect'): Partial<FulfilmentDeps> => ({
  faults: {
    [hook]: (name: string) => {
      if (name === effect) throw new Error(`simulated crash after ${name}`);
    },
  },
});

const success = (order: PlacedOrder): FulfilmentMessage => ({
  event_id: `evt_${order.orderId.slice(0, 8)}`,
  type: 'payment_intent.succeeded',
  created: Math.floor(Date.now() / 1000),
  order_id: order.orderId,
  payment_intent_id: order.paymentIntentId,
  amount: order.amount,
  currency: 'gbp',
});

const buyers = {
  esim: (email: string) => ({
    cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
    customer_email: email,
    customer_country: 'GB',
    customer_phone: '+447700900321',
    sms_opt_in: true,
  }),
  physical: (email: string) => ({
    cart: [{ catalog_sku: 'PHYSICAL-SIM-UK', quantity: 1 }],
    customer_email: email,
    customer_country: 'GB',
    customer_name: 'Pat Post',
    shipping_address: { line1: '1 Lane', city: 'York', postal_code: 'YO1 1AA', country: 'GB' },
  }),
  iot: (email: string) => ({
    cart: [{ sku: 'IOT-CONTRACT-1GB', quantity: 1 }],
    customer_email: email,
    customer_country: 'GB',
    customer_first_name: 'Ivy',
    customer_last_name: 'Iot',
    customer_phone: '+447700900322',
    sms_opt_in: true,
    data_processing_consent: { agreed: true, wording: 'I agree.', given_at: '2026-11-20T10:00:00Z' },
    billing_address: { line1: '1 Way', city: 'Bath', postal_code: 'BA1 1AA', country: 'GB' },
    shipping_address: { line1: '2 Way', city: 'Bath', postal_code: 'BA1 1AB', country: 'GB' },
  }),
};

/** What one fulfilled order left behind, counted. */
const tally = async (endpoint: keyof typeof buyers, order: PlacedOrder, email: string) => {
  const stored = (await readOrder(db, runtime.tableName, order.orderId))!;
  const effects = await readEffects(db, runtime.tableName, order.orderId);
  return {
    status: stored.status,
    emails: readOutbox(outbox(), order.orderId).map((mail) => mail.headers.subject!.split(' ')[0]),
    sms: (await smsMessages(runtime.smsSimulatorUrl, order.orderId)).map((message) => message.reference.slice(order.orderId.length + 1)),
    notifications: readOperationsOutbox(outbox(), order.orderId).length,
    account: (await readAccount(db, runtime.tableName, email))?.account_type,
    devices: endpoint === 'esim' ? (await Promise.all(stored.held_units.map((unit) => readDevice(db, runtime.tableName, unit.iccid)))).filter(Boolean).length : 0,
    task: (await readTask(db, runtime.tableName, order.orderId))?.status,
    effects: Object.fromEntries(Object.entries(effects).map(([name, effect]) => [name, effect.status])),
  };
};

const expected = {
  esim: {
    status: 'fulfilled', emails: ['Your'], sms: ['sms'], notifications: 0, account: 'traveler', devices: 1, task: undefined,
    effects: { stock: 'done', account: 'done', devices: 'done', receipt_email: 'done', sms: 'done' },
  },
  physical: {
    status: 'fulfilled', emails: ['Your'], sms: [], notifications: 1, account: 'consumer', devices: 0, task: 'awaiting_dispatch',
    effects: { stock: 'done', account: 'done', dispatch_task: 'done', receipt_email: 'done', operations_notification: 'done' },
  },
  iot: {
    status: 'fulfilled', emails: ['Invoice', 'Your'], sms: ['sms_receipt'], notifications: 0, account: 'reseller', devices: 0, task: undefined,
    effects: { account: 'done', receipt_email: 'done', sms_receipt: 'done', invoice_email: 'done' },
  },
};

describe('a worker that dies between effects', () => {
  const cases = (Object.keys(expected) as Array<keyof typeof expected>).flatMap((endpoint) =>
    Object.keys(expected[endpoint].effects).map((effect) => [endpoint, effect] as const),
  );

  it.each(cases)('%s order, death after %s: the next delivery completes it and every effect happens once', async (endpoint, effect) => {
    const email = `${endpoint}-${effect.replace(/_/g, '-')}@crash.example`;
    const order = await placeOrder(runtime, stripe, endpoint, buyers[endpoint](email));
    await expect(processPaymentMessage(depsWith(crashAt(effect)), success(order))).rejects.toThrow(`simulated crash after ${effect}`);
    expect((await readOrder(db, runtime.tableName, order.orderId))!.status).toBe('paid');

    expect(await processPaymentMessage(depsWith(), success(order))).toBe('fulfilled');
    expect(await processPaymentMessage(depsWith(), success(order))).toBe('already_fulfilled');
    const result = await tally(endpoint, order, email);
    expect({ ...result, emails: [...result.emails].sort() }).toEqual(expected[endpoint]);
  });
});

describe('a worker that dies after claiming a message, before recording it', () => {
  /** The outbox mailer without findSent: an adapter that cannot tell whether a message left (SES). */
  const blindMailer = (): Mailer => {
    const real = depsWith().mailer()!;
    return { send: (message) => real.send(message) };
  };

  it('with an adapter that cannot tell (SES), does not send it again (at most once): recorded unknown and logged with the order id', async () => {
    const capture = captureLogLines();
    const order = await placeOrder(runtime, stripe, 'esim', buyers.esim('unknown@crash.example'));
    await expect(
      processPaymentMessage(depsWith({ ...crashAt('receipt_email', 'afterSend'), mailer: blindMailer }), success(order)),
    ).rejects.toThrow('simulated crash after receipt_email');
    expect(await processPaymentMessage(depsWith({ mailer: blindMailer }), success(order))).toBe('fulfilled');
    const result = await tally('esim', order, 'unknown@crash.example');
    expect(result).toEqual({ ...expected.esim, effects: { ...expected.esim.effects, receipt_email: 'unknown' } });
    capture.restore();
    const lines = capture.lines();
    expect(logEntries(lines).filter((line) => String(line.message).includes('outcome unknown'))).toEqual([
      {
        level: 'ERROR',
        message: 'fulfilment message outcome unknown: not sent again',
        timestamp: expect.any(String),
        service: 'sim-checkout-service',
        order_id: order.orderId,
        effect: 'receipt_email',
        claimed_at: expect.any(String),
      },
    ]);
    expect(metricLines(lines).filter((line) => 'EffectsUnknown' in line)).toHaveLength(1);
  });

  it('with the local outbox, which can tell: a message that was sent is recorded done and not sent again', async () => {
    const capture = captureLogLines();
    const order = await placeOrder(runtime, stripe, 'esim', buyers.esim('found@crash.example'));
    await expect(processPaymentMessage(depsWith(crashAt('receipt_email', 'afterSend')), success(order))).rejects.toThrow(
      'simulated crash after receipt_email',
    );
    expect(await processPaymentMessage(depsWith(), success(order))).toBe('fulfilled');
    expect(await tally('esim', order, 'found@crash.example')).toEqual(expected.esim);
    const receipt = (await readEffects(db, runtime.tableName, order.orderId)).receipt_email!;
    expect(receipt.detail).toMatchObject({ id: expect.stringContaining(`${order.orderId}.receipt_email-`), settled: 'sent by a worker that stopped before recording it' });
    capture.restore();
    expect(logEntries(capture.lines()).filter((line) => String(line.message).includes('found sent'))).toEqual([
      {
        level: 'INFO',
        message: 'fulfilment message found sent: recorded',
        timestamp: expect.any(String),
        service: 'sim-checkout-service',
        order_id: order.orderId,
        effect: 'receipt_email',
        claimed_at: expect.any(String),
      },
    ]);
  });

  it('with the local outbox, which can tell: a message claimed but never written is sent once by the next worker', async () => {
    const order = await placeOrder(runtime, stripe, 'esim', buyers.esim('claimed@crash.example'));
    await expect(processPaymentMessage(depsWith(crashAt('devices')), success(order))).rejects.toThrow('simulated crash after devices');
    // The dead worker's claim, as a worker killed between claiming and writing the file leaves it.
    await db.send(
      new PutCommand({
        TableName: runtime.tableName,
        Item: {
          ...key.fulfilmentEffect(order.orderId, 'receipt_email'),
          type: 'fulfilment_effect', order_id: order.orderId, effect: 'receipt_email', status: 'pending',
          claim: 'a-worker-that-died', claimed_at: new Date().toISOString(),
        },
      }),
    );
    expect(readOutbox(outbox(), order.orderId)).toEqual([]);
    expect(await processPaymentMessage(depsWith(), success(order))).toBe('fulfilled');
    expect(await tally('esim', order, 'claimed@crash.example')).toEqual(expected.esim);
    expect((await readEffects(db, runtime.tableName, order.orderId)).receipt_email).toMatchObject({ status: 'done', claim: expect.not.stringMatching(/^a-worker-that-died$/) });
  });
});

describe('concurrent deliveries and failed sends', () => {
  it('fulfils the same event delivered to two workers at once exactly once', async () => {
    const order = await placeOrder(runtime, stripe, 'esim', buyers.esim('together@concurrent.example'));
    const outcomes = await Promise.all([processPaymentMessage(depsWith(), success(order)), processPaymentMessage(depsWith(), success(order))]);
    expect(outcomes.sort()).toEqual(['already_fulfilled', 'fulfilled']);
    expect(await tally('esim', order, 'together@concurrent.example')).toEqual(expected.esim);
  });

  it('retries a send that certainly failed with the next delivery, and sends it once', async () => {
    const real = depsWith().mailer()!;
    let calls = 0;
    const flaky: Mailer = {
      send: async (message) => {
        calls += 1;
        if (calls === 1) throw new EmailNotSentError('SES refused the message: Throttling');
        return real.send(message);
      },
    };
    const order = await placeOrder(runtime, stripe, 'esim', buyers.esim('flaky@retry.example'));
    await expect(processPaymentMessage(depsWith({ mailer: () => flaky }), success(order))).rejects.toThrow('SES refused the message');
    expect(await readEffects(db, runtime.tableName, order.orderId)).not.toHaveProperty('receipt_email');
    expect(await processPaymentMessage(depsWith({ mailer: () => flaky }), success(order))).toBe('fulfilled');
    expect(calls).toBe(2);
    expect(await tally('esim', order, 'flaky@retry.example')).toEqual(expected.esim);
  });

  it('records an SMS the provider refuses as failed, does not retry it, and still fulfils the order', async () => {
    const refusing = { submit: async () => { throw new SmsProviderFailure('error', 'SMS provider answered 400: invalid number'); } };
    const order = await placeOrder(runtime, stripe, 'esim', buyers.esim('refused@sms.example'));
    expect(await processPaymentMessage(depsWith({ smsProvider: async () => refusing }), success(order))).toBe('fulfilled');
    const effects = await readEffects(db, runtime.tableName, order.orderId);
    expect(effects.sms).toMatchObject({ status: 'failed', detail: { error: { name: 'SmsProviderFailure', message: 'SMS provider answered 400: invalid number' } } });
    expect(await processPaymentMessage(depsWith(), success(order))).toBe('already_fulfilled');
    expect(await smsMessages(runtime.smsSimulatorUrl, order.orderId)).toEqual([]);
  });
});

describe('the order lease', () => {
  it('waits for a live worker and gives the message back when it takes too long; a lease run out is taken over', async () => {
    const order = await placeOrder(runtime, stripe, 'esim', buyers.esim('lease@crash.example'));
    const hold = (until: number) =>
      db.send(
        new UpdateCommand({
          TableName: runtime.tableName,
          Key: key.order(order.orderId),
          UpdateExpression: 'SET fulfilment_lease_owner = :owner, fulfilment_lease_until = :until',
          ExpressionAttributeValues: { ':owner': 'another-worker', ':until': until },
        }),
      );
    await hold(Date.now() + 60_000);
    await expect(processPaymentMessage(depsWith({ leaseWaitMs: 300 }), success(order))).rejects.toThrow(OrderBusyError);
    expect((await readOrder(db, runtime.tableName, order.orderId))!.status).toBe('pending');
    await hold(Date.now() - 1);
    expect(await processPaymentMessage(depsWith(), success(order))).toBe('fulfilled');
    expect(await readOrder(db, runtime.tableName, order.orderId)).not.toHaveProperty('fulfilment_lease_owner');
  });
});

describe('a message that keeps failing', () => {
  it('lands in the dead-letter queue after the receive count, logged with its order id at every failure', async () => {
    const capture = captureLogLines();
    const orderId = '00000000-0000-4000-8000-00000000dead';
    // A corrupt order (its lines are not a list) makes every attempt fail the same way.
    await db.send(
      new PutCommand({
        TableName: runtime.tableName,
        Item: {
          ...key.order(orderId), type: 'order', id: orderId, endpoint: 'esim', status: 'pending', lines: 'corrupt', currency: 'GBP',
          amount_total_pence: 100, customer_email: 'corrupt@example.com', customer_email_lower: 'corrupt@example.com', held_units: [],
          created_at: '2026-11-22T00:00:00.000Z', updated_at: '2026-11-22T00:00:00.000Z',
        },
      }),
    );
    const message: FulfilmentMessage = {
      event_id: 'evt_corrupt', type: 'payment_intent.succeeded', created: 1795314900, order_id: orderId,
      payment_intent_id: 'pi_corrupt', amount: 100, currency: 'gbp',
    };
    await sqs.send(new SendMessageCommand({ QueueUrl: runtime.queues.fulfilment.url, MessageBody: JSON.stringify(message) }));

    const dead = await eventually(async () => {
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: runtime.queues.fulfilment.deadLetterUrl, WaitTimeSeconds: 1 }));
      expect(Messages).toHaveLength(1);
      return Messages![0]!;
    }, 20_000);
    expect(JSON.parse(dead.Body!)).toEqual(message);

    capture.restore();
    const failures = logEntries(capture.lines()).filter((line) => line.message === 'fulfilment failed');
    expect(failures).toHaveLength(5);
    expect(failures.map((failure) => [failure.order_id, failure.event_id, failure.receive_count, failure.next])).toEqual([
      [orderId, 'evt_corrupt', 1, 'retry'],
      [orderId, 'evt_corrupt', 2, 'retry'],
      [orderId, 'evt_corrupt', 3, 'retry'],
      [orderId, 'evt_corrupt', 4, 'retry'],
      [orderId, 'evt_corrupt', 5, 'dead-letter queue'],
    ]);
    // Sent by hand without a correlation_id attribute: the SQS message id stands in for it.
    expect(failures[0]).toMatchObject({
      level: 'ERROR',
      max_receive_count: 5,
      function_name: 'fulfil-order',
      sqs_message_id: dead.MessageId,
      correlation_id: dead.MessageId,
    });
  });
});
