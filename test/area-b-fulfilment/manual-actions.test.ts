import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../admin/cli';
import type { Mailer } from '../../shared/adapters/email/mailer';
import { functionConfigs } from '../../shared/config/function-config';
import { readConfiguration } from '../../shared/config/variables';
import { fulfilmentDeps, type FulfilmentDeps } from '../../shared/fulfilment/deps';
import type { FulfilmentMessage } from '../../shared/fulfilment/message';
import { processPaymentMessage } from '../../shared/fulfilment/process';
import { documents, readOrder, resetStock } from '../area-b/support/checkout-api';
import { useShopRuntime } from '../support/shop-runtime';
import { readOutbox } from './support/outbox';
import { logLinesOf, metricLines } from '../support/log-lines';
import { placeOrder, readEffects, waitForStatus, type PlacedOrder } from './support/shop';

const seed = {
  plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
  stock: [],
};

const db = documents();

const { runtime, stripe } = useShopRuntime(seed, {
  db,
  prepare: async ({ runtime }) => {
    await resetStock(db, runtime.tableName, 'esim', Array.from({ length: 6 }, (_, index) => `89445000000000071${String(index).padStart(2, '0')}`));
  },
});

const depsWith = (overrides: Partial<FulfilmentDeps> = {}): FulfilmentDeps => ({
  ...fulfilmentDeps(readConfiguration(functionConfigs['fulfil-order'], runtime.env)),
  ...overrides,
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

const buyer = (email: string) => ({ cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }], customer_email: email, customer_country: 'GB' });

/** Runs the admin CLI against the runtime's table and queues; its exit code and what it wrote. */
const admin = async (...args: string[]) => {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runAdmin([...args, '--table', runtime.tableName, '--endpoint', runtime.dynamodbEndpoint], {
    env: {},
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out, err };
};

const queueOptions = () => ['--queue-url', runtime.queues.fulfilment.url, '--sqs-endpoint', runtime.sqsEndpoint];

/** A fulfilled order whose receipt e-mail is recorded `unknown` (its worker died between sending and recording, SES-like). */
const orderWithUnknownReceipt = async (email: string): Promise<PlacedOrder> => {
  const real = depsWith().mailer()!;
  const blind: Mailer = { send: (message) => real.send(message) };
  const order = await placeOrder(runtime, stripe, 'esim', buyer(email));
  const crash = { faults: { afterSend: (name: string) => { if (name === 'receipt_email') throw new Error('simulated crash'); } } };
  await expect(processPaymentMessage(depsWith({ ...crash, mailer: () => blind }), success(order))).rejects.toThrow('simulated crash');
  expect(await processPaymentMessage(depsWith({ mailer: () => blind }), success(order))).toBe('fulfilled');
  expect((await readEffects(db, runtime.tableName, order.orderId)).receipt_email?.status).toBe('unknown');
  return order;
};

describe('npm run admin -- resend-effect (runbook: effect-outcome-unknown)', () => {
  it('sends the unknown message once more through the fulfilment queue, and the order is fulfilled again', async () => {
    const order = await orderWithUnknownReceipt('resend@manual.example');
    expect(readOutbox(runtime.env.EMAIL_OUTBOX_DIR!, order.orderId).filter((mail) => mail.file.includes('receipt_email'))).toHaveLength(1);
    const result = await admin('resend-effect', order.orderId, '--effect', 'receipt_email', ...queueOptions());
    expect(result).toEqual({
      code: 0,
      out: [expect.stringMatching(new RegExp(`^Queued evt_manual_resend_\\d+ for order ${order.orderId}$`))],
      err: [`Effect receipt_email of order ${order.orderId} cleared and the order moved back to paid.`],
    });
    await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');
    const effects = await readEffects(db, runtime.tableName, order.orderId);
    expect(effects.receipt_email?.status).toBe('done');
    expect(Object.values(effects).map((effect) => effect.status)).not.toContain('unknown');
    expect(readOutbox(runtime.env.EMAIL_OUTBOX_DIR!, order.orderId).filter((mail) => mail.file.includes('receipt_email'))).toHaveLength(2);
  });

  it('refuses an effect that is not unknown, changing nothing', async () => {
    const order = await orderWithUnknownReceipt('refused@manual.example');
    const before = await readOrder(db, runtime.tableName, order.orderId);
    expect(await admin('resend-effect', order.orderId, '--effect', 'account')).toEqual({
      code: 1,
      out: [],
      err: [`Refused: effect account of order ${order.orderId} is done, not unknown`],
    });
    expect(await readOrder(db, runtime.tableName, order.orderId)).toEqual(before);
    expect(await admin('resend-effect', order.orderId)).toMatchObject({ code: 2 });
  });

  it('without --queue-url prints the aws sqs send-message command with the payment event', async () => {
    const order = await orderWithUnknownReceipt('printed@manual.example');
    const result = await admin('resend-effect', order.orderId, '--effect', 'receipt_email');
    expect(result.code).toBe(0);
    const [command] = result.out;
    const body = JSON.parse(/--message-body '(.+)'$/.exec(command!)![1]!) as FulfilmentMessage;
    expect(body).toEqual({ ...success(order), event_id: expect.stringMatching(/^evt_manual_resend_\d+$/), created: expect.any(Number) });
    expect((await readOrder(db, runtime.tableName, order.orderId))!.status).toBe('paid');
  });
});

describe('npm run admin -- resume-order (runbook: order-flagged-for-review)', () => {
  it('moves a reviewed order to paid and fulfils it through the queue; refuses an order not under review', async () => {
    const order = await placeOrder(runtime, stripe, 'esim', buyer('review@manual.example'));
    const flagged = await logLinesOf(async () =>
      expect(await processPaymentMessage(depsWith(), { ...success(order), amount: order.amount + 1 })).toBe('review_required'),
    );
    // The alarm order-flagged-for-review watches this metric.
    expect(metricLines(flagged).filter((line) => 'OrdersFlaggedForReview' in line)).toEqual([
      expect.objectContaining({ OrdersFlaggedForReview: 1, service: 'sim-checkout-service' }),
    ]);
    const result = await admin('resume-order', order.orderId, ...queueOptions());
    expect(result).toEqual({
      code: 0,
      out: [expect.stringMatching(new RegExp(`^Queued evt_manual_review_\\d+ for order ${order.orderId}$`))],
      err: [`Order ${order.orderId} moved from review_required to paid.`],
    });
    const fulfilled = await waitForStatus(db, runtime.tableName, order.orderId, 'fulfilled');
    expect(fulfilled).toMatchObject({ reviewed_at: expect.any(String), review_reason: expect.any(String) });
    expect(await admin('resume-order', order.orderId)).toEqual({
      code: 1,
      out: [],
      err: [`Refused: order ${order.orderId} is fulfilled, not review_required`],
    });
  });
});
