import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApiGatewayEvent } from '../../local/api-gateway-event';
import { lambdaContext } from '../../local/lambda-context';
import { loadSeedDocument } from '../../local/seed/load';
import { stripeGateway, type PaymentIntentRequest } from '../../shared/adapters/stripe/payment-gateway';
import { StripeApiError, stripeApiVersion, type StripeRequestPolicy } from '../../shared/adapters/stripe/stripe-api';
import { stripeForm } from '../../shared/adapters/stripe/form-encoding';
import { checkoutHandler } from '../../shared/routes/checkout';
import { rateTableTaxCalculator } from '../../shared/checkout/tax';
import { createTestTable, testDynamoClient } from '../support/resources';
import { documents, readOrder, serviceToken, stripeTestKey } from './support/checkout-api';
import type { ScriptedAnswer } from '../../local/stripe-emulator/standalone';
import { startStripeStandIn, type StripeStandIn } from '../support/shop-runtime';
import { paymentIntentAnswer, stripeErrorAnswer } from './support/stripe-answers';

// The Stripe adapter (shared/adapters/stripe/) against the suites' Stripe stand-in, scripted with Stripe's wire
// format: the exact request it sends, its retries, and how each kind of Stripe failure
// becomes checkout's one answer, 502 stripe_error.
process.env.STOREFRONT_SERVICE_TOKEN = serviceToken;

/** The policy of the deployed adapter with shorter waits, so a timeout costs 0.3 s here, not 5 s. */
const policy: StripeRequestPolicy = { timeoutMs: 300, maxNetworkRetries: 1, retryDelayMs: 20, maxResponseBytes: 1024 * 1024 };

const orderId = '5b0c1c9e-8c9e-4f7a-9a43-0e2f0c6d7a11';
const request: PaymentIntentRequest = {
  amount: 1440,
  currency: 'gbp',
  metadata: { order_id: orderId, endpoint: 'esim' },
  receiptEmail: 'tess+travel@gmail.com',
  description: `Order ${orderId}`,
  idempotencyKey: `order-${orderId}`,
};
const expectedBody =
  `amount=1440&currency=gbp&metadata[order_id]=${orderId}&metadata[endpoint]=esim` +
  `&receipt_email=tess%2Btravel%40gmail.com&description=Order%20${orderId}`;

let stripe: StripeStandIn;

beforeAll(async () => {
  stripe = await startStripeStandIn();
});

afterAll(async () => {
  await stripe?.stop();
});

beforeEach(() => {
  stripe.wire.length = 0;
  stripe.script((incoming) => paymentIntentAnswer(incoming));
});

const create = () => stripeGateway(stripeTestKey, stripe.url, policy).createPaymentIntent(request);

/** The StripeApiError a promise rejects with, as plain fields. */
const failureOf = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(StripeApiError);
  const { message, details } = error as StripeApiError;
  return { message, ...details };
};

describe('the request', () => {
  it('is one form-encoded POST /v1/payment_intents with the key, the pinned version and the idempotency key', async () => {
    expect(await create()).toEqual({ id: 'pi_3WireTest0000000000000001', clientSecret: 'pi_3WireTest0000000000000001_secret_WireTestSecret0000000001' });
    expect(stripe.wire).toHaveLength(1);
    const [sent] = stripe.wire;
    expect(sent).toMatchObject({ method: 'POST', path: '/v1/payment_intents', body: expectedBody });
    expect(sent!.headers).toMatchObject({
      authorization: `Bearer ${stripeTestKey}`,
      'content-type': 'application/x-www-form-urlencoded',
      'content-length': String(Buffer.byteLength(expectedBody)),
      accept: 'application/json',
      'stripe-version': '2026-10-28.endive',
      'idempotency-key': `order-${orderId}`,
    });
    expect(stripeApiVersion).toBe('2026-10-28.endive');
  });

  it('encodes fields as stripe-node does: brackets kept, qs-style escapes, undefined left out', () => {
    expect(stripeForm({ a: "x y&z=1!'()*~", metadata: { 'k[1]': 'ü', skip: undefined }, n: 0, b: false, none: undefined })).toBe(
      'a=x%20y%26z%3D1%21%27%28%29%2A~&metadata[k[1]]=%C3%BC&n=0&b=false',
    );
  });

  it('leaves description out when there is none', async () => {
    await stripeGateway(stripeTestKey, stripe.url, policy).createPaymentIntent({ ...request, description: undefined });
    expect(stripe.wire[0]!.body).toBe(expectedBody.replace(`&description=Order%20${orderId}`, ''));
  });

  it('prefixes the path of STRIPE_API_BASE (an emulator under a path of the local API)', async () => {
    await stripeGateway(stripeTestKey, `${stripe.url}/_local/stripe`, policy).createPaymentIntent(request);
    expect(stripe.wire.map((sent) => sent.path)).toEqual(['/_local/stripe/v1/payment_intents']);
  });
});

describe('failures', () => {
  it('card error (402): not retried, Stripe’s type, code and message kept', async () => {
    stripe.script(() => stripeErrorAnswer(402, { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' }));
    expect(await failureOf(create())).toEqual({
      message: 'Your card was declined.',
      statusCode: 402,
      type: 'card_error',
      code: 'card_declined',
      param: undefined,
      requestId: 'req_err402',
      attempts: 1,
    });
    expect(stripe.wire).toHaveLength(1);
  });

  it('400 invalid request: not retried, the param named', async () => {
    stripe.script(() =>
      stripeErrorAnswer(400, { type: 'invalid_request_error', code: 'parameter_invalid_integer', param: 'amount', message: 'Invalid integer: x' }),
    );
    expect(await failureOf(create())).toMatchObject({ statusCode: 400, type: 'invalid_request_error', code: 'parameter_invalid_integer', param: 'amount', attempts: 1 });
    expect(stripe.wire).toHaveLength(1);
  });

  it('401 (a wrong key): not retried', async () => {
    stripe.script(() => stripeErrorAnswer(401, { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****0000' }));
    expect(await failureOf(create())).toMatchObject({ statusCode: 401, type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****0000', attempts: 1 });
    expect(stripe.wire).toHaveLength(1);
  });

  it('429: not retried unless Stripe says Stripe-Should-Retry: true', async () => {
    stripe.script(() => stripeErrorAnswer(429, { type: 'rate_limit_error', code: 'rate_limit', message: 'Too many requests' }));
    expect(await failureOf(create())).toMatchObject({ statusCode: 429, type: 'rate_limit_error', code: 'rate_limit', attempts: 1 });
    expect(stripe.wire).toHaveLength(1);

    stripe.wire.length = 0;
    stripe.script((incoming, count) =>
      count === 1 ? stripeErrorAnswer(429, { type: 'rate_limit_error', message: 'Too many requests' }, { 'Stripe-Should-Retry': 'true' }) : paymentIntentAnswer(incoming),
    );
    expect((await create()).id).toBe('pi_3WireTest0000000000000001');
    expect(stripe.wire).toHaveLength(2);
  });

  it('500: retried once with the same body and idempotency key; a second 500 fails', async () => {
    const serverError = () => stripeErrorAnswer(500, { type: 'api_error', message: 'An unknown error occurred' });
    stripe.script((incoming, count) => (count === 1 ? serverError() : paymentIntentAnswer(incoming)));
    expect((await create()).id).toBe('pi_3WireTest0000000000000001');
    expect(stripe.wire).toHaveLength(2);
    expect(stripe.wire[1]!.body).toBe(stripe.wire[0]!.body);
    expect(stripe.wire.map((sent) => sent.headers['idempotency-key'])).toEqual([`order-${orderId}`, `order-${orderId}`]);

    stripe.wire.length = 0;
    stripe.script(serverError);
    expect(await failureOf(create())).toMatchObject({ statusCode: 500, type: 'api_error', message: 'An unknown error occurred', attempts: 2 });
    expect(stripe.wire).toHaveLength(2);
  });

  it('500 with Stripe-Should-Retry: false, and 409, follow Stripe’s hint and rule', async () => {
    stripe.script(() => stripeErrorAnswer(500, { type: 'api_error', message: 'An unknown error occurred' }, { 'Stripe-Should-Retry': 'false' }));
    expect(await failureOf(create())).toMatchObject({ statusCode: 500, attempts: 1 });
    expect(stripe.wire).toHaveLength(1);

    stripe.wire.length = 0;
    stripe.script((incoming, count) =>
      count === 1
        ? stripeErrorAnswer(409, { type: 'idempotency_error', message: 'There is currently another in-progress request using this Idempotent Key.' })
        : paymentIntentAnswer(incoming),
    );
    expect((await create()).id).toBe('pi_3WireTest0000000000000001');
    expect(stripe.wire).toHaveLength(2);
  });

  it('timeout: each attempt is cut after the policy’s time, retried once, then fails without a status', async () => {
    stripe.script(() => ({ hang: true }));
    const started = Date.now();
    expect(await failureOf(create())).toEqual({
      message: 'No answer from the Stripe API after 2 attempt(s): no complete response within 300 ms',
      attempts: 2,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(600);
    expect(stripe.wire).toHaveLength(2);

    // The retry that succeeds must answer within the policy's time: 300 ms is short on a busy
    // machine (the stand-in answers from this process), so this half allows 1 s an attempt.
    stripe.wire.length = 0;
    stripe.script((incoming, count) => (count === 1 ? { hang: true } : paymentIntentAnswer(incoming)));
    const patient = stripeGateway(stripeTestKey, stripe.url, { ...policy, timeoutMs: 1000 });
    expect((await patient.createPaymentIntent(request)).id).toBe('pi_3WireTest0000000000000001');
    expect(stripe.wire).toHaveLength(2);
  });

  it('no server: retried once, then fails', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const failure = await failureOf(stripeGateway(stripeTestKey, `http://127.0.0.1:${port}`, policy).createPaymentIntent(request));
    expect(failure.attempts).toBe(2);
    expect(failure.statusCode).toBeUndefined();
    expect(failure.message).toMatch(/^No answer from the Stripe API after 2 attempt\(s\): ECONNREFUSED/);
  });

  it('an answer that is not Stripe’s: invalid JSON, or an intent without client_secret', async () => {
    stripe.script(() => ({ status: 200, body: '<html>proxy</html>' }));
    expect(await failureOf(create())).toMatchObject({ message: 'Invalid JSON received from the Stripe API (HTTP 200)', statusCode: 200, attempts: 1 });
    stripe.script(() => ({ status: 200, body: { id: 'pi_1', object: 'payment_intent', client_secret: null } }));
    expect(await failureOf(create())).toMatchObject({ message: 'payment intent pi_1 has no client_secret', statusCode: 200 });
  });
});

describe('checkout’s answer to each failure', () => {
  let tableName: string;
  const db = documents();
  const body = { cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }], customer_email: 'tess@gmail.com', customer_country: 'GB' };

  beforeAll(async () => {
    tableName = await createTestTable();
    const client = testDynamoClient();
    await loadSeedDocument(
      {
        plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
        // One unit: each failed checkout gives its hold back.
        stock: [{ iccid: '8944500000000009301', kind: 'esim' }],
      },
      { client, tableName },
    );
    client.destroy();
  });

  afterAll(() => db.destroy());

  const checkout = async () => {
    const handler = checkoutHandler('esim', {
      db,
      tableName,
      now: () => new Date('2026-11-20T10:00:00Z'),
      newOrderId: () => randomUUID(),
      taxCalculator: rateTableTaxCalculator(),
      paymentGateway: async () => stripeGateway(stripeTestKey, stripe.url, policy),
      stockHoldMinutes: 30,
    });
    const event = buildApiGatewayEvent(
      { resource: '/api/v1/checkout', pathParameters: null },
      {
        method: 'POST',
        path: '/api/v1/checkout',
        rawQuery: '',
        rawHeaders: ['Content-Type', 'application/json', 'Authorization', `Bearer ${serviceToken}`],
        body: Buffer.from(JSON.stringify(body)),
        sourceIp: '127.0.0.1',
        localPort: 3000,
      },
    );
    const result = (await handler(event, lambdaContext({ name: 'checkout-esim' }))) as APIGatewayProxyResult;
    return { status: result.statusCode, contentType: result.headers?.['Content-Type'], body: JSON.parse(result.body) as Record<string, string> };
  };

  const failures: Array<[string, () => ScriptedAnswer]> = [
    ['card error', () => stripeErrorAnswer(402, { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' })],
    ['400 invalid request', () => stripeErrorAnswer(400, { type: 'invalid_request_error', param: 'amount', message: 'Invalid integer' })],
    ['401', () => stripeErrorAnswer(401, { type: 'invalid_request_error', message: 'Invalid API Key provided' })],
    ['429', () => stripeErrorAnswer(429, { type: 'rate_limit_error', message: 'Too many requests' })],
    ['500 (after its retry)', () => stripeErrorAnswer(500, { type: 'api_error', message: 'An unknown error occurred' })],
    ['timeout (after its retry)', () => ({ hang: true })],
  ];

  it.each(failures)('%s: 502 stripe_error, the order failed', async (_name, answer) => {
    stripe.script(answer);
    expect(await checkout()).toEqual({
      status: 502,
      contentType: 'application/json',
      body: { detail: 'The payment processor could not create the payment intent; try again later.', code: 'stripe_error' },
    });
    const sentOrderId = new URLSearchParams(stripe.wire[0]!.body).get('metadata[order_id]')!;
    expect(await readOrder(db, tableName, sentOrderId)).toMatchObject({ status: 'failed', failure_reason: 'stripe_error' });
  });

  it('success: 201 with the intent’s client_secret', async () => {
    const answer = await checkout();
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ client_secret: 'pi_3WireTest0000000000000001_secret_WireTestSecret0000000001' });
  });
});
