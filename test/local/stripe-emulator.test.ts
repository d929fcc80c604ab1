import { createServer, type Server } from 'node:http';
import { stripeApiVersion } from '../../shared/adapters/stripe/api-version';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type Gateway } from '../../local/gateway';
import {
  createStripeEmulator, localPublishableKey, serveStripeEmulator, type ServedStripeEmulator, type StripeEmulator,
} from '../../local/stripe-emulator';
import { stripeSignature } from '../../local/stripe-emulator/events';

// stripe-node takes host, port and protocol but no path prefix: these tests serve the emulator's
// handler at the root of a port of its own, and one test shows that the `/_local/stripe` mount
// of the local gateway answers the same.
const secretKey = 'sk_test_emulator_suite_0000000000000';
const webhookSecret = 'whsec_emulator_suite_Zx8Cv5Bn2Mq9Lk4';

interface Received {
  signature: string;
  body: string;
}

let emulator: StripeEmulator;
let served: ServedStripeEmulator;
let receiver: Server;
let received: Received[];
/** How many of the next deliveries the receiver refuses with 500. */
let refuseNext = 0;
let stripe: Stripe;
let browser: Stripe;

beforeAll(async () => {
  received = [];
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (refuseNext > 0) {
        refuseNext -= 1;
        response.writeHead(500).end();
        return;
      }
      received.push({ signature: String(request.headers['stripe-signature']), body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/v1/webhooks/stripe`;
  emulator = createStripeEmulator({
    secretKey,
    webhookUrl: () => receiverUrl,
    webhookSecret: () => webhookSecret,
    delivery: { initialDelayMs: 20, maxDelayMs: 100, maxAttempts: 4 },
    log: () => undefined,
  });
  served = await serveStripeEmulator(emulator);
  const address = { host: '127.0.0.1', port: served.port, protocol: 'http' as const, telemetry: false, maxNetworkRetries: 0 };
  stripe = new Stripe(secretKey, address);
  browser = new Stripe(localPublishableKey, address);
});

afterAll(async () => {
  emulator?.stop();
  await served?.stop();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

/** A stripe-node object without the SDK's lastResponse (the HTTP answer it came in). */
const plain = <T extends object>(value: T): Omit<T, 'lastResponse'> => {
  const { lastResponse: _, ...rest } = value as T & { lastResponse?: unknown };
  return rest;
};

/** What the service sends (shared/adapters/stripe/payment-gateway.ts). */
const serviceCreate = (orderId: string, idempotencyKey = `checkout-${orderId}`) =>
  stripe.paymentIntents.create(
    { amount: 1440, currency: 'gbp', metadata: { order_id: orderId }, receipt_email: 'sam@example.com', description: `Order ${orderId}` },
    { idempotencyKey },
  );

const intentShape = (orderId: string, overrides: Record<string, unknown> = {}) => ({
  id: expect.stringMatching(/^pi_[A-Za-z0-9]{24}$/),
  object: 'payment_intent',
  amount: 1440,
  amount_capturable: 0,
  amount_details: { tip: {} },
  amount_received: 0,
  application: null,
  application_fee_amount: null,
  automatic_payment_methods: { allow_redirects: 'always', enabled: true },
  canceled_at: null,
  cancellation_reason: null,
  capture_method: 'automatic_async',
  client_secret: expect.stringMatching(/^pi_[A-Za-z0-9]{24}_secret_[A-Za-z0-9]{25}$/),
  confirmation_method: 'automatic',
  created: expect.any(Number),
  currency: 'gbp',
  customer: null,
  description: `Order ${orderId}`,
  last_payment_error: null,
  latest_charge: null,
  livemode: false,
  metadata: { order_id: orderId },
  next_action: null,
  on_behalf_of: null,
  payment_method: null,
  payment_method_configuration_details: null,
  payment_method_options: { card: { installments: null, mandate_options: null, network: null, request_three_d_secure: 'automatic' } },
  payment_method_types: ['card'],
  processing: null,
  receipt_email: 'sam@example.com',
  review: null,
  setup_future_usage: null,
  shipping: null,
  source: null,
  statement_descriptor: null,
  statement_descriptor_suffix: null,
  status: 'requires_payment_method',
  transfer_data: null,
  transfer_group: null,
  ...overrides,
});

const stripeErrorOf = async (call: Promise<unknown>) => {
  try {
    await call;
  } catch (error) {
    const failure = error as Stripe.errors.StripeError;
    return { class: failure.constructor.name, type: failure.type, statusCode: failure.statusCode, code: failure.code, param: failure.param, message: failure.message };
  }
  throw new Error('expected a StripeError');
};

/** The events delivered for this intent, verified by stripe-node as the service would. */
const eventsFor = async (intentId: string) => {
  await emulator.events.idle();
  return received
    .map(({ signature, body }) => stripe.webhooks.constructEvent(body, signature, webhookSecret))
    .filter((event) => (event.data.object as { id: string }).id === intentId);
};

describe('Stripe emulator through stripe-node', () => {
  it('creates a payment intent as the service asks, with Stripe\'s object and a created event', async () => {
    const intent = await serviceCreate('o-create');
    expect(plain(intent)).toEqual(intentShape('o-create'));
    expect(intent.client_secret!.startsWith(`${intent.id}_secret_`)).toBe(true);
    expect(intent.lastResponse).toMatchObject({ statusCode: 200, apiVersion: stripeApiVersion, idempotencyKey: 'checkout-o-create' });
    const events = await eventsFor(intent.id);
    expect(events.map(({ type, object, livemode, api_version }) => ({ type, object, livemode, api_version }))).toEqual([
      { type: 'payment_intent.created', object: 'event', livemode: false, api_version: stripeApiVersion },
    ]);
    expect(events[0]!.data.object).toEqual(plain(intent));
  });

  it('replays the first answer for the same idempotency key and parameters, and refuses other parameters', async () => {
    const first = await serviceCreate('o-idem', 'key-idem');
    const again = await serviceCreate('o-idem', 'key-idem');
    expect(again.id).toBe(first.id);
    expect(again.client_secret).toBe(first.client_secret);
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    expect(emulator.intents.all().filter((intent) => intent.metadata.order_id === 'o-idem')).toHaveLength(1);
    expect(await stripeErrorOf(serviceCreate('o-other', 'key-idem'))).toEqual({
      class: 'StripeIdempotencyError',
      type: 'StripeIdempotencyError',
      statusCode: 400,
      code: undefined,
      param: undefined,
      message:
        "Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than 'key-idem' if you meant to execute a different request.",
    });
  });

  it('retrieves an intent with the secret key, and with the client_secret as Stripe.js does', async () => {
    const intent = await serviceCreate('o-retrieve');
    expect(plain(await stripe.paymentIntents.retrieve(intent.id))).toEqual(plain(intent));
    const seen = await browser.paymentIntents.retrieve(intent.id, { client_secret: intent.client_secret! });
    expect(Object.keys(plain(seen)).sort()).toEqual(
      [
        'id', 'object', 'amount', 'amount_details', 'automatic_payment_methods', 'canceled_at', 'cancellation_reason', 'capture_method',
        'client_secret', 'confirmation_method', 'created', 'currency', 'description', 'last_payment_error', 'livemode', 'next_action',
        'payment_method', 'payment_method_types', 'processing', 'receipt_email', 'setup_future_usage', 'shipping', 'status',
      ].sort(),
    );
    expect(await stripeErrorOf(browser.paymentIntents.retrieve(intent.id, { client_secret: `${intent.id}_secret_wrong` }))).toEqual({
      class: 'StripeInvalidRequestError',
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      code: 'payment_intent_invalid_parameter',
      param: 'client_secret',
      message: 'The client_secret provided does not match the client_secret associated with the PaymentIntent.',
    });
    expect(await stripeErrorOf(browser.paymentIntents.retrieve(intent.id))).toMatchObject({ class: 'StripeAuthenticationError', statusCode: 401 });
  });

  it('confirms with pm_card_visa: succeeded, amount_received, and a signed payment_intent.succeeded', async () => {
    const intent = await serviceCreate('o-visa');
    const paid = await browser.paymentIntents.confirm(intent.id, { client_secret: intent.client_secret!, payment_method: 'pm_card_visa' } as Stripe.PaymentIntentConfirmParams);
    expect(paid.status).toBe('succeeded');
    expect(paid.amount).toBe(1440);
    expect(paid.payment_method).toMatch(/^pm_[A-Za-z0-9]{24}$/);
    const stored = plain(await stripe.paymentIntents.retrieve(intent.id));
    expect(stored).toEqual({
      ...intentShape('o-visa', {
        id: intent.id, client_secret: intent.client_secret, created: intent.created, status: 'succeeded', amount_received: 1440,
        payment_method: paid.payment_method, latest_charge: expect.stringMatching(/^ch_/),
      }),
    });
    const events = await eventsFor(intent.id);
    expect(events.map((event) => event.type)).toEqual(['payment_intent.created', 'payment_intent.succeeded']);
    expect(events[1]!.data.object).toEqual(stored);
    // stripe-node sends an idempotency key of its own on every POST; the event names it.
    expect(events[1]!.request).toEqual({ id: expect.stringMatching(/^req_/), idempotency_key: expect.stringMatching(/^stripe-node-retry-/) });
  });

  it('declines pm_card_chargeDeclined with 402 card_declined and leaves requires_payment_method', async () => {
    const intent = await serviceCreate('o-decline');
    expect(await stripeErrorOf(stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_chargeDeclined' }))).toEqual({
      class: 'StripeCardError',
      type: 'StripeCardError',
      statusCode: 402,
      code: 'card_declined',
      param: undefined,
      message: 'Your card was declined.',
    });
    const stored = await stripe.paymentIntents.retrieve(intent.id);
    expect(stored.status).toBe('requires_payment_method');
    expect(stored.last_payment_error).toMatchObject({ type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' });
    const events = await eventsFor(intent.id);
    expect(events.map((event) => event.type)).toEqual(['payment_intent.created', 'payment_intent.payment_failed']);
    // Paying again after a decline succeeds.
    const paid = await stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_visa' });
    expect({ status: paid.status, amount_received: paid.amount_received, last_payment_error: paid.last_payment_error }).toEqual({
      status: 'succeeded', amount_received: 1440, last_payment_error: null,
    });
  });

  it('cancels, sends payment_intent.canceled, and refuses to confirm or cancel again', async () => {
    const intent = await serviceCreate('o-cancel');
    const canceled = await stripe.paymentIntents.cancel(intent.id, { cancellation_reason: 'abandoned' });
    expect({ status: canceled.status, cancellation_reason: canceled.cancellation_reason, canceled_at: typeof canceled.canceled_at }).toEqual({
      status: 'canceled', cancellation_reason: 'abandoned', canceled_at: 'number',
    });
    expect((await eventsFor(intent.id)).map((event) => event.type)).toEqual(['payment_intent.created', 'payment_intent.canceled']);
    expect(await stripeErrorOf(stripe.paymentIntents.cancel(intent.id))).toMatchObject({
      class: 'StripeInvalidRequestError', statusCode: 400, code: 'payment_intent_unexpected_state',
    });
    expect(await stripeErrorOf(stripe.paymentIntents.confirm(intent.id, { payment_method: 'pm_card_visa' }))).toMatchObject({
      class: 'StripeInvalidRequestError', statusCode: 400, code: 'payment_intent_unexpected_state',
    });
  });

  it('answers Stripe\'s errors for a missing intent, bad parameters and a wrong key', async () => {
    expect(await stripeErrorOf(stripe.paymentIntents.retrieve('pi_missing'))).toEqual({
      class: 'StripeInvalidRequestError', type: 'StripeInvalidRequestError', statusCode: 404, code: 'resource_missing', param: 'intent',
      message: "No such payment_intent: 'pi_missing'",
    });
    expect(await stripeErrorOf(stripe.paymentIntents.create({ currency: 'gbp' } as Stripe.PaymentIntentCreateParams))).toEqual({
      class: 'StripeInvalidRequestError', type: 'StripeInvalidRequestError', statusCode: 400, code: 'parameter_missing', param: 'amount',
      message: 'Missing required param: amount.',
    });
    expect(await stripeErrorOf(stripe.paymentIntents.create({ amount: 'ten', currency: 'gbp' } as unknown as Stripe.PaymentIntentCreateParams))).toEqual({
      class: 'StripeInvalidRequestError', type: 'StripeInvalidRequestError', statusCode: 400, code: 'parameter_invalid_integer', param: 'amount',
      message: 'Invalid integer: ten',
    });
    expect(await stripeErrorOf(stripe.paymentIntents.create({ amount: 1000, currency: 'gbp', colour: 'red' } as Stripe.PaymentIntentCreateParams))).toEqual({
      class: 'StripeInvalidRequestError', type: 'StripeInvalidRequestError', statusCode: 400, code: 'parameter_unknown', param: 'colour',
      message: 'Received unknown parameter: colour',
    });
    expect(await stripeErrorOf(stripe.paymentIntents.confirm((await serviceCreate('o-pm')).id, { payment_method: 'pm_nope' }))).toEqual({
      class: 'StripeInvalidRequestError', type: 'StripeInvalidRequestError', statusCode: 404, code: 'resource_missing', param: 'payment_method',
      message: "No such PaymentMethod: 'pm_nope'",
    });
    const stranger = new Stripe('sk_test_not_the_emulators_key_0000', { host: '127.0.0.1', port: served.port, protocol: 'http', telemetry: false });
    expect(await stripeErrorOf(stranger.paymentIntents.list())).toMatchObject({ class: 'StripeAuthenticationError', statusCode: 401 });
  });

  it('lists and searches intents by metadata', async () => {
    const intent = await serviceCreate('o-search');
    const found = await stripe.paymentIntents.search({ query: "metadata['order_id']:'o-search'" });
    expect({ object: found.object, ids: found.data.map((item) => item.id), has_more: found.has_more, url: found.url }).toEqual({
      object: 'search_result', ids: [intent.id], has_more: false, url: '/v1/payment_intents/search',
    });
    const page = await stripe.paymentIntents.list({ limit: 2 });
    expect({ object: page.object, first: page.data[0]!.id, count: page.data.length, has_more: page.has_more, url: page.url }).toEqual({
      object: 'list', first: intent.id, count: 2, has_more: true, url: '/v1/payment_intents',
    });
  });

  it('sends an event again with backoff until the endpoint answers 2xx', async () => {
    refuseNext = 2;
    const intent = await serviceCreate('o-retry');
    const events = await eventsFor(intent.id);
    expect(events.map((event) => event.type)).toEqual(['payment_intent.created']);
    const attempts = emulator.events.deliveries.filter((delivery) => delivery.eventId === events[0]!.id);
    expect(attempts.map(({ attempt, status }) => ({ attempt, status }))).toEqual([
      { attempt: 1, status: 500 }, { attempt: 2, status: 500 }, { attempt: 3, status: 200 },
    ]);
  });

  it('signs as Stripe does: t=<seconds>,v1=<HMAC-SHA256 of "t.body">', () => {
    const header = stripeSignature('{"id":"evt_1"}', webhookSecret, 1_700_000_000);
    expect(stripe.webhooks.constructEvent('{"id":"evt_1"}', header, webhookSecret, 1e12)).toEqual({ id: 'evt_1' });
    expect(header).toBe(stripe.webhooks.generateTestHeaderString({ payload: '{"id":"evt_1"}', secret: webhookSecret, timestamp: 1_700_000_000 }));
  });
});

describe('the /_local/stripe mount of the local gateway', () => {
  let gateway: Gateway;
  beforeAll(async () => {
    gateway = await startGateway({ routes: [], quiet: true, localMounts: { '/_local/stripe': emulator.handle } });
  });
  afterAll(() => gateway?.stop());

  it('answers as the emulator at its own root does', async () => {
    const intent = await serviceCreate('o-mount');
    const get = (base: string) =>
      fetch(`${base}/v1/payment_intents/${intent.id}?client_secret=${intent.client_secret}`).then(async (response) => ({
        status: response.status, type: response.headers.get('content-type'), body: await response.json(),
      }));
    const mounted = await get(`${gateway.baseUrl}/_local/stripe`);
    expect(mounted).toEqual(await get(served.url));
    expect(mounted.status).toBe(200);
    const pay = await fetch(`${gateway.baseUrl}/_local/stripe/v1/payment_intents/${intent.id}/confirm`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_secret: intent.client_secret!, payment_method: 'pm_card_visa' }),
    });
    expect({ status: pay.status, body: await pay.json() }).toMatchObject({ status: 200, body: { id: intent.id, status: 'succeeded', amount: 1440 } });
  });

  it('answers any other /_local/ path with the gateway\'s JSON 404, never a function', async () => {
    for (const path of ['/_local', '/_local/', '/_local/stripes/v1/payment_intents']) {
      const response = await fetch(`${gateway.baseUrl}${path}`);
      expect({ path, status: response.status, body: await response.json() }).toEqual({ path, status: 404, body: { detail: 'Not found.', code: 'not_found' } });
    }
  });
});
