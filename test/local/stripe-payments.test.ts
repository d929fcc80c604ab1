import { describe, expect, it } from 'vitest';
import { pay } from '../../local/pay-cli';
import { localSecretKey } from '../../local/stripe-emulator';
import { documents, post, readOrder, serviceToken } from '../area-b/support/checkout-api';
import { eventually } from '../support/eventually';
import { useTestRuntime } from '../support/runtime';

// STRIPE_SECRET_KEY unset: the runtime runs the embedded Stripe emulator, and a checkout is
// paid, declined or cancelled through `{base}/_local/stripe` as a storefront would
// (LOCAL-CONTRACT.md, "Payments on one machine"). `none` is test/local/stripe-none.test.ts; a
// configured key is what every Area B suite runs with (test/support/shop-runtime.ts).
const seed = {
  plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
  stock: ['8944500000000066001', '8944500000000066002', '8944500000000066003'].map((iccid) => ({ iccid, kind: 'esim' })),
};

const db = documents();
/** What the runtime told the person at the terminal (npm start prints these lines). */
const announced: string[] = [];

const runtime = useTestRuntime(
  { seed, env: { STOREFRONT_SERVICE_TOKEN: serviceToken }, announce: (line) => announced.push(line) },
  { stopAfter: () => db.destroy() },
);

const checkout = async (email: string) => {
  const answer = await post(runtime.baseUrl, '/api/v1/checkout', {
    cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }],
    customer_email: email,
    customer_country: 'GB',
  });
  expect(answer.status, answer.text).toBe(201);
  const { order_id: orderId, client_secret: clientSecret } = answer.body as { order_id: string; client_secret: string };
  return { orderId, clientSecret, intentId: clientSecret.split('_secret_')[0]! };
};

const stripeCall = async (path: string, form: Record<string, string>) => {
  const response = await fetch(`${runtime.baseUrl}/_local/stripe${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as Record<string, unknown> };
};

const statusOf = (orderId: string, status: string) =>
  eventually(async () => {
    const order = await readOrder(db, runtime.tableName, orderId);
    expect(order?.status).toBe(status);
  }, 20_000);

describe('STRIPE_SECRET_KEY unset: the embedded Stripe emulator', () => {
  it('configures the service for the emulator under /_local/stripe', () => {
    expect(runtime.env.STRIPE_SECRET_KEY).toBe(localSecretKey);
    expect(runtime.env.STRIPE_API_BASE).toBe(`${runtime.baseUrl}/_local/stripe`);
    expect(runtime.payments.mode).toBe('emulator');
  });

  it('prints the ready pay command of each checkout it creates', async () => {
    announced.length = 0;
    const { orderId } = await checkout('announce@example.com');
    expect(announced).toEqual([
      `Checkout ${orderId} awaits payment: npm run pay -- ${orderId} --base ${runtime.baseUrl}   (or Pay on ${runtime.consoleUrl}#order-${orderId})`,
    ]);
    // A refused checkout prints nothing.
    expect((await post(runtime.baseUrl, '/api/v1/checkout', { cart: [] })).status).toBe(400);
    expect(announced).toHaveLength(1);
  });

  it('pays a checkout with pm_card_visa; the signed succeeded event fulfils the order', async () => {
    const { orderId, clientSecret, intentId } = await checkout('visa@emulator.example');
    const paid = await stripeCall(`/v1/payment_intents/${intentId}/confirm`, { client_secret: clientSecret, payment_method: 'pm_card_visa' });
    expect(paid).toMatchObject({ status: 200, type: 'application/json', body: { id: intentId, object: 'payment_intent', status: 'succeeded', amount: 1440 } });
    await statusOf(orderId, 'fulfilled');
    const emulator = runtime.payments.mode === 'emulator' ? runtime.payments.emulator : undefined;
    const intent = emulator!.intents.get(intentId);
    expect({ order_id: intent.metadata.order_id, amount_received: intent.amount_received, currency: intent.currency }).toEqual({
      order_id: orderId, amount_received: 1440, currency: 'gbp',
    });
    await emulator!.events.idle();
    const delivered = emulator!.events.deliveries.filter((delivery) => emulator!.events.events.some((event) => event.id === delivery.eventId && (event.data.object as { id: string }).id === intentId));
    expect(delivered.map(({ type, status }) => ({ type, status }))).toEqual([
      { type: 'payment_intent.created', status: 200 },
      { type: 'payment_intent.succeeded', status: 200 },
    ]);
  });

  it('declines pm_card_chargeDeclined with 402 card_declined, then cancels: the order ends cancelled', async () => {
    const { orderId, clientSecret, intentId } = await checkout('decline@emulator.example');
    const declined = await stripeCall(`/v1/payment_intents/${intentId}/confirm`, { client_secret: clientSecret, payment_method: 'pm_card_chargeDeclined' });
    expect(declined).toMatchObject({
      status: 402,
      body: { error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.', payment_intent: { id: intentId, status: 'requires_payment_method' } } },
    });
    await statusOf(orderId, 'payment_failed');
    const canceled = await stripeCall(`/v1/payment_intents/${intentId}/cancel`, { client_secret: clientSecret });
    expect(canceled).toMatchObject({ status: 200, body: { id: intentId, status: 'canceled' } });
    await statusOf(orderId, 'cancelled');
  });

  it('npm run pay finds an order\'s intent through the emulator\'s search and declines or pays it', async () => {
    const first = await checkout('pay-cli@emulator.example');
    expect(await pay(first.orderId, 'decline', runtime.baseUrl)).toEqual({ intentId: first.intentId, status: 402, outcome: 'card_declined' });
    expect(await pay(first.orderId, 'pay', runtime.baseUrl)).toEqual({ intentId: first.intentId, status: 200, outcome: 'succeeded' });
    await statusOf(first.orderId, 'fulfilled');
    await expect(pay('no-such-order', 'pay', runtime.baseUrl)).rejects.toThrow(`No payment intent for order no-such-order on ${runtime.baseUrl}.`);
  });
});
