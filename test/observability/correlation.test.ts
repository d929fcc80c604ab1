import { afterAll, describe, expect, it } from 'vitest';
import { fetchFromRuntime } from '../support/request';
import { useTestRuntime } from '../support/runtime';
import { captureLogLines, logEntries, metricLines, type LogCapture, type LogLine } from '../support/log-lines';
import { eventually } from '../support/eventually';
import { postReceipt, postSms } from '../area-a-sms/support/http';
import { selfSignedCertificate, startHttpsReceiver, type HttpsReceiver, type TestCertificate } from '../support/https-receiver';
import { callerPool, sims, smsSeed } from '../area-a-sms/support/seed';
import { emfProblems } from './emf-schema';

/**
 * Issue #14: one request's log lines across the local gateway, the function, the queue and the
 * consumer share one correlation id, and the answer carries it as X-Request-Id. Two stories,
 * each spanning two requests linked by origin_correlation_id (docs/operations.md, Correlation):
 * an SMS with a callback_url (send-sms; then the provider's receipt → receive-sms-receipt →
 * callbacks queue → forward-receipt to a local HTTPS receiver), and a checkout paid through the
 * Stripe emulator (checkout; then the Stripe webhook → fulfilment queue → fulfil-order).
 */
const seed = {
  ...smsSeed,
  plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }],
  stock: [{ iccid: '8944500000000099001', kind: 'esim' }],
};

let certificate: TestCertificate;
let receiver: HttpsReceiver;
let capture: LogCapture;
const acme = callerPool('acme');
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const runtime = useTestRuntime(
  async () => {
    certificate = selfSignedCertificate();
    receiver = await startHttpsReceiver(certificate);
    return {
      seed,
      quiet: false,
      env: {
        // The simulator would post the receipt later; this test posts it itself, to read the answer.
        SMS_SIMULATOR_DELAY_MS: '600000',
        CALLBACK_ALLOWED_HOSTS: 'localhost',
        NODE_EXTRA_CA_CERTS: certificate.certPath,
        CALLBACK_SIGNING_SECRET: 'correlation-test-secret',
      },
    };
  },
  {
    prepare: () => {
      capture = captureLogLines();
    },
    stopAfter: async () => {
      await receiver?.stop();
      certificate?.remove();
    },
  },
);

// Registered after the fixture's, so it runs before the runtime stops (afterAll hooks run last first).
afterAll(() => capture?.restore());

const linesWith = (id: string): LogLine[] => logEntries(capture.lines()).filter((line) => line.correlation_id === id);
const where = (line: LogLine) => String(line.consumer ?? line.component ?? line.function_name);

describe('one correlation id per request, across gateway, function, queue and consumer', () => {
  it('an SMS with a callback_url: the send, then the receipt and its forward, linked by origin_correlation_id', async () => {
    const messageId = `corr-${process.pid}`;
    const sent = await postSms(runtime.baseUrl, acme(), sims.acme.iccid, { message: 'hello', message_id: messageId, callback_url: `${receiver.url}/ok/corr` });
    expect(sent.status).toBe(202);
    const sendId = sent.headers.get('x-request-id')!;
    expect(sendId).toMatch(uuid);

    const receipt = await postReceipt(runtime.baseUrl, runtime.env.SMS_RECEIPT_SECRET!, { reference: messageId, status: 'delivered' });
    expect(receipt.status).toBe(200);
    const receiptId = receipt.headers.get('x-request-id')!;
    expect(receiptId).toMatch(uuid);
    expect(receiptId).not.toBe(sendId);
    await eventually(async () => expect(linesWith(receiptId).some((line) => line.message === 'receipt forwarded')).toBe(true), 15_000);
    expect(receiver.requestsTo('/ok/corr')).toHaveLength(1);

    // The send: the gateway's line and the function's, one id.
    expect(linesWith(sendId).map((line) => [where(line), line.message])).toEqual([
      ['send-sms', 'sms submitted'],
      ['local-gateway', 'request'],
    ]);
    expect(linesWith(sendId)[0]).toMatchObject({ function_name: 'send-sms', message_id: messageId, sim_id: expect.any(Number), customer_id: 'acme' });
    expect(linesWith(sendId)[1]).toMatchObject({ method: 'POST', status: 202, route: 'send-sms' });
    expect(metricLines(capture.lines()).filter((line) => line.correlation_id === sendId && 'SmsSubmitted' in line)).toHaveLength(1);

    // The receipt: gateway, function, the callbacks queue's batch, the consumer: one id, and the send's as origin.
    const chain = linesWith(receiptId);
    expect(chain.map((line) => [where(line), line.message])).toEqual(
      expect.arrayContaining([
        ['receive-sms-receipt', 'sms receipt recorded'],
        ['local-gateway', 'request'],
        ['forward-receipt', 'receipt forwarded'],
      ]),
    );
    const recorded = chain.find((line) => line.message === 'sms receipt recorded')!;
    const forwarded = chain.find((line) => line.message === 'receipt forwarded')!;
    expect(recorded).toMatchObject({ message_id: messageId, origin_correlation_id: sendId, outcome: 'recorded', forwarded: true });
    expect(forwarded).toMatchObject({ message_id: messageId, origin_correlation_id: sendId, status: 'delivered', http_status: 204, sqs_message_id: expect.any(String) });
    // The poller logs the batch once the consumer has returned, a moment after the forward's line.
    const batch = await eventually(() => {
      const found = logEntries(capture.lines()).find(
        (line) => line.message === 'queue batch' && line.queue === 'callbacks' && (line.correlation_ids as unknown[]).includes(receiptId),
      );
      expect(found).toBeDefined();
      return found;
    }, 5_000);
    expect(batch).toMatchObject({ component: 'local-poller', consumer: 'forward-receipt', records: 1, failed: 0 });
  });

  it('a checkout paid through the Stripe emulator: the checkout, then the webhook and the fulfilment, linked by origin_correlation_id', async () => {
    const answer = await fetchFromRuntime(`${runtime.baseUrl}/api/v1/checkout`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${runtime.env.STOREFRONT_SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }], customer_email: 'corr@example.com', customer_country: 'GB' }),
    });
    expect(answer.status).toBe(201);
    const checkoutId = answer.headers.get('x-request-id')!;
    expect(checkoutId).toMatch(uuid);
    const { order_id: orderId, client_secret: clientSecret } = (await answer.json()) as { order_id: string; client_secret: string };
    expect(metricLines(capture.lines()).filter((line) => line.correlation_id === checkoutId).map((line) => Object.keys(line).find((key) => /^[A-Z]/.test(key)))).toEqual(
      expect.arrayContaining(['PaymentIntentsCreated', 'Checkouts', 'Requests', 'Latency']),
    );

    const intent = clientSecret.slice(0, clientSecret.indexOf('_secret_'));
    const paid = await fetch(`${runtime.baseUrl}/_local/stripe/v1/payment_intents/${intent}/confirm`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_secret: clientSecret, payment_method: 'pm_card_visa' }),
    });
    expect(paid.status).toBe(200);

    const processed = await eventually(async () => {
      const line = logEntries(capture.lines()).find((candidate) => candidate.message === 'payment event processed' && candidate.order_id === orderId);
      expect(line).toBeDefined();
      return line!;
    }, 20_000);
    expect(processed).toMatchObject({ function_name: 'fulfil-order', outcome: 'fulfilled', origin_correlation_id: checkoutId });
    const webhookId = String(processed.correlation_id);
    expect(webhookId).toMatch(uuid);
    expect(webhookId).not.toBe(checkoutId);
    const chain = linesWith(webhookId);
    expect(chain.map((line) => [where(line), line.message])).toEqual(
      expect.arrayContaining([
        ['stripe-webhook', 'payment event queued for fulfilment'],
        ['local-gateway', 'request'],
        ['fulfil-order', 'fulfilment message sent'],
        ['fulfil-order', 'payment event processed'],
      ]),
    );
    // What the consumer did for the order (here the receipt e-mail) is logged under the same id.
    expect(chain.find((line) => line.message === 'fulfilment message sent')).toMatchObject({ order_id: orderId, effect: 'receipt_email', origin_correlation_id: checkoutId });
    expect(chain.find((line) => line.message === 'payment event queued for fulfilment')).toMatchObject({ order_id: orderId });
    expect(chain.find((line) => where(line) === 'local-gateway')).toMatchObject({ path: '/api/v1/webhooks/stripe', status: 200 });
    expect(linesWith(checkoutId).map((line) => where(line))).toEqual(['local-gateway']);
  });
});

describe('the metrics of issue #14, emitted where they occur, valid EMF', () => {
  /** The EMF lines of `name` written under correlation id `id` (all, when no id). */
  const metric = (name: string, id?: string) =>
    metricLines(capture.lines()).filter((line) => name in line && (id === undefined || line.correlation_id === id));
  const answerId = (response: { headers: Headers }) => response.headers.get('x-request-id')!;

  it('every EMF line written by the runtime so far is valid against the EMF schema', () => {
    const lines = metricLines(capture.lines());
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(emfProblems(line), JSON.stringify(line)).toEqual([]);
  });

  it('counts auth failures and 429s by code, requests by route and status class, and cold starts', async () => {
    const unauthenticated = await fetchFromRuntime(`${runtime.baseUrl}/developer/api/sims/`);
    expect(unauthenticated.status).toBe(401);
    expect(metric('AuthFailures', answerId(unauthenticated))).toEqual([expect.objectContaining({ code: 'bearer_token_required', AuthFailures: 1 })]);
    expect(metric('Requests', answerId(unauthenticated))).toEqual([
      expect.objectContaining({ route: 'GET /developer/api/sims/', status_class: '4xx', Requests: 1 }),
    ]);
    const caller = acme();
    const headers = { Authorization: `Bearer ${caller.token}`, 'X-Customer-API-Key': caller.apiKey };
    expect((await fetchFromRuntime(`${runtime.baseUrl}/developer/api/sims/`, { headers })).status).toBe(200);
    const polled = await fetchFromRuntime(`${runtime.baseUrl}/developer/api/sims/`, { headers });
    expect(polled.status).toBe(429);
    expect(metric('RateLimited', answerId(polled))).toEqual([expect.objectContaining({ code: 'rate_limited_poll_interval', RateLimited: 1 })]);
    expect(metric('ColdStart').map((line) => line.function_name)).toEqual(expect.arrayContaining(['send-sms', 'receive-sms-receipt', 'forward-receipt', 'list-sims']));
  });

  it('counts SMS refused by code, receipts by status, callbacks forwarded and failed', async () => {
    const refused = await postSms(runtime.baseUrl, acme(), sims.noMsisdn.iccid, { message: 'no number' });
    expect(refused.status).toBe(422);
    expect(metric('SmsRefused', refused.headers.get('x-request-id')!)).toEqual([expect.objectContaining({ code: 'no_msisdn', SmsRefused: 1 })]);

    const messageId = `fail-${process.pid}`;
    expect((await postSms(runtime.baseUrl, acme(), sims.acme.iccid, { message: 'x', message_id: messageId, callback_url: `${receiver.url}/error/m` })).status).toBe(202);
    const receipt = await postReceipt(runtime.baseUrl, runtime.env.SMS_RECEIPT_SECRET!, { reference: messageId, status: 'failed' });
    const receiptId = receipt.headers.get('x-request-id')!;
    expect(metric('Receipts', receiptId)).toEqual([expect.objectContaining({ status: 'failed', Receipts: 1 })]);
    await eventually(async () => expect(metric('CallbacksFailed', receiptId)).toHaveLength(1), 15_000);
    // The first test's receipt was forwarded.
    expect(metric('CallbacksForwarded')).toHaveLength(1);
  });

  it('counts checkouts by endpoint and outcome, payment intents created, fulfilments completed', async () => {
    const refused = await fetchFromRuntime(`${runtime.baseUrl}/api/v1/checkout`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${runtime.env.STOREFRONT_SERVICE_TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ cart: [{ catalog_sku: 'NO-SUCH-SKU', quantity: 1 }], customer_email: 'm@example.com', customer_country: 'GB' }),
    });
    expect(refused.status).toBe(404);
    expect(metric('Checkouts', answerId(refused))).toEqual([expect.objectContaining({ endpoint: 'esim', outcome: 'unknown_sku', Checkouts: 1 })]);
    // The second test's checkout.
    expect(metric('Checkouts').filter((line) => line.outcome === 'created')).toHaveLength(1);
    expect(metric('PaymentIntentsCreated')).toHaveLength(1);
    expect(metric('FulfilmentsCompleted')).toEqual([expect.objectContaining({ FulfilmentsCompleted: 1, correlation_id: expect.stringMatching(uuid) })]);
  });
});
