import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApiGatewayEvent } from '../../local/api-gateway-event';
import { checkoutExampleBodies, checkoutPaths } from '../../local/checkout-examples';
import { lambdaContext } from '../../local/lambda-context';
import { loadSeedDocument } from '../../local/seed/load';
import { functionConfigs } from '../../shared/config/function-config';
import { readConfiguration } from '../../shared/config/variables';
import type { CheckoutDeps } from '../../shared/checkout/deps';
import { checkoutHandler } from '../../shared/routes/checkout';
import { idempotencyTimings } from '../../shared/idempotency/idempotency';
import { rateTableTaxCalculator, type TaxCalculator } from '../../shared/checkout/tax';
import type { CheckoutEndpoint } from '../../shared/db/items';
import { stripeGateway, type PaymentGateway } from '../../shared/adapters/stripe/payment-gateway';
import { createTestTable, testDynamoClient } from '../support/resources';
import { documents, heldBy, readOrder, readStock, resetStock, serviceToken, stripeTestKey } from './support/checkout-api';
import { startStripeStandIn, type StripeStandIn } from '../support/shop-runtime';

// The handlers are invoked in this process with deps of the test's choosing (a failing tax
// calculator, a controllable clock), against DynamoDB Local and the Stripe emulator (local/stripe-emulator) on a port of its own.
process.env.STOREFRONT_SERVICE_TOKEN = serviceToken;

// A working request of each endpoint: the start banner's examples (the seed below has their plans).
const paths = checkoutPaths;
const bodies = checkoutExampleBodies;

const seed = {
  plans: [
    { sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' },
    { sku: 'PHYSICAL-SIM-UK', name: 'Physical SIM', category: 'physical', published: true, price: '9.99' },
    { sku: 'IOT-CONTRACT-1GB', name: 'IoT 1 GB', category: 'iot_contract', published: true, price: '18.00' },
  ],
  stock: [{ iccid: '8944500000000009101', kind: 'physical' }],
};

const esimIccids = (count: number) => Array.from({ length: count }, (_, index) => `8944500000000${String(index + 1).padStart(6, '0')}`);

let tableName: string;
let stripe: StripeStandIn;
const db = documents();
let clock = new Date('2026-11-20T10:00:00Z');

const deps = (overrides: Partial<CheckoutDeps> = {}): CheckoutDeps => ({
  db,
  tableName,
  now: () => clock,
  newOrderId: () => randomUUID(),
  taxCalculator: rateTableTaxCalculator(),
  paymentGateway: async () => stripeGateway(stripeTestKey, stripe.url),
  stockHoldMinutes: 30,
  ...overrides,
});

const invoke = async (
  endpoint: CheckoutEndpoint,
  checkoutDeps: CheckoutDeps,
  body: unknown = bodies[endpoint],
  headers: string[] = [],
) => {
  const handler = checkoutHandler(endpoint, checkoutDeps);
  const event = buildApiGatewayEvent(
    { resource: paths[endpoint], pathParameters: null },
    {
      method: 'POST',
      path: paths[endpoint],
      rawQuery: '',
      rawHeaders: ['Content-Type', 'application/json', 'Authorization', `Bearer ${serviceToken}`, ...headers],
      body: Buffer.from(JSON.stringify(body)),
      sourceIp: '127.0.0.1',
      localPort: 3000,
    },
  );
  const result = (await handler(event, lambdaContext({ name: `checkout-${endpoint}` }))) as APIGatewayProxyResult;
  return {
    status: result.statusCode,
    contentType: result.headers?.['Content-Type'],
    body: JSON.parse(result.body) as Record<string, string>,
    replayed: result.headers?.['Idempotent-Replayed'],
  };
};

const countOrders = async () =>
  (await db.send(new ScanCommand({ TableName: tableName, FilterExpression: '#type = :order', ExpressionAttributeNames: { '#type': 'type' }, ExpressionAttributeValues: { ':order': 'order' }, ConsistentRead: true }))).Items?.length ?? 0;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  tableName = await createTestTable();
  const client = testDynamoClient();
  await loadSeedDocument(seed, { client, tableName });
  client.destroy();
});

afterAll(async () => {
  await stripe?.stop();
  db.destroy();
});

beforeEach(async () => {
  stripe.setMode('ok');
  clock = new Date('2026-11-20T10:00:00Z');
  await resetStock(db, tableName, 'esim', esimIccids(1));
});

describe('tax_fail', () => {
  const failing: TaxCalculator = {
    calculate: async () => {
      throw new Error('tax service unavailable');
    },
  };
  const nonsense: TaxCalculator = { calculate: async () => ({ rate: '20', taxPence: 1.5 }) };

  it.each(['esim', 'physical', 'iot'] as const)(
    'answers 502 tax_fail on %s when the tax adapter fails, before holding stock or writing the order',
    async (endpoint) => {
      const ordersBefore = await countOrders();
      const requestsBefore = stripe.requests.length;
      for (const calculator of [failing, nonsense]) {
        const answer = await invoke(endpoint, deps({ taxCalculator: calculator }));
        expect(answer).toEqual({
          status: 502,
          contentType: 'application/json',
          body: { detail: 'VAT could not be calculated for this order; try again later.', code: 'tax_fail' },
        });
      }
      expect(await countOrders()).toBe(ordersBefore);
      expect(stripe.requests.length).toBe(requestsBefore);
      for (const kind of ['esim', 'physical']) {
        expect((await readStock(db, tableName, kind)).filter((unit) => unit.held_by)).toEqual([]);
      }
    },
  );
});

describe('stock holds', () => {
  it('holds for STOCK_HOLD_MINUTES; an expired hold frees its unit for the next checkout', async () => {
    const first = await invoke('esim', deps());
    expect(first.status).toBe(201);
    const [unit] = await readStock(db, tableName, 'esim');
    expect(unit).toMatchObject({ held_by: first.body.order_id, hold_expires_at: Date.parse('2026-11-20T10:30:00Z') / 1000 });

    clock = new Date('2026-11-20T10:29:59Z');
    const whileHeld = await invoke('esim', deps());
    expect(whileHeld).toEqual({
      status: 409,
      contentType: 'application/json',
      body: { detail: 'Not enough eSIM stock for this cart.', code: 'out_of_stock' },
    });

    clock = new Date('2026-11-20T10:30:01Z');
    const afterExpiry = await invoke('esim', deps());
    expect(afterExpiry.status).toBe(201);
    const [retaken] = await readStock(db, tableName, 'esim');
    expect(retaken).toMatchObject({ iccid: unit!.iccid, held_by: afterExpiry.body.order_id, hold_expires_at: Date.parse('2026-11-20T11:00:01Z') / 1000 });
  });

  it('takes the hold length from the deps (fractions of a minute allowed)', async () => {
    const answer = await invoke('esim', deps({ stockHoldMinutes: 0.5 }));
    expect(answer.status).toBe(201);
    const [unit] = await readStock(db, tableName, 'esim');
    expect(unit!.hold_expires_at).toBe(Date.parse('2026-11-20T10:00:30Z') / 1000);
  });

  it('releases the hold when Stripe fails, so the next checkout can take the unit', async () => {
    stripe.setMode('server_error');
    const failed = await invoke('esim', deps());
    expect(failed.status).toBe(502);
    const failedOrderId = stripe.requests.at(-1)!.metadata.order_id!;
    expect(await readOrder(db, tableName, failedOrderId)).toMatchObject({ status: 'failed', failure_reason: 'stripe_error', held_units: [{ kind: 'esim', iccid: esimIccids(1)[0] }] });
    const [released] = await readStock(db, tableName, 'esim');
    expect(released).not.toHaveProperty('held_by');
    expect(released).not.toHaveProperty('hold_expires_at');

    stripe.setMode('ok');
    const next = await invoke('esim', deps());
    expect(next.status).toBe(201);
    const [taken] = await readStock(db, tableName, 'esim');
    expect(taken!.held_by).toBe(next.body.order_id);
  });

  it('holds more than 100 units for one order (several transactions) and refuses what is left short', async () => {
    await resetStock(db, tableName, 'esim', esimIccids(160));
    const cart = Array.from({ length: 15 }, () => ({ catalog_sku: 'TRAVEL-EU-5GB', quantity: 10 }));
    const big = await invoke('esim', deps(), { ...bodies.esim, cart });
    expect(big.status).toBe(201);
    expect(big.body).toMatchObject({ subtotal: '1800.00', tax_amount: '360.00', amount_total: '2160.00' });
    const units = await readStock(db, tableName, 'esim');
    const held = heldBy(units, big.body.order_id!);
    expect(held).toHaveLength(150);
    const order = await readOrder(db, tableName, big.body.order_id!);
    expect(new Set(order!.held_units.map((unit) => unit.iccid))).toEqual(new Set(held.map((unit) => unit.iccid)));

    const tooMany = await invoke('esim', deps(), { ...bodies.esim, cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 10 }, { catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }] });
    expect(tooMany.status).toBe(409);
    expect((await readStock(db, tableName, 'esim')).filter((unit) => unit.held_by)).toHaveLength(150);
  });
});

describe('Idempotency-Key while the first request runs', () => {
  it('answers 409 idempotency_request_in_progress to a duplicate that outwaits the first, then replays its result', async () => {
    const waitMs = idempotencyTimings.waitMs;
    idempotencyTimings.waitMs = 300;
    let releaseStripe!: () => void;
    const stripeMayAnswer = new Promise<void>((resolve) => {
      releaseStripe = resolve;
    });
    let reachedStripe!: () => void;
    const firstReachedStripe = new Promise<void>((resolve) => {
      reachedStripe = resolve;
    });
    const real = stripeGateway(stripeTestKey, stripe.url);
    const slow: PaymentGateway = {
      createPaymentIntent: async (request) => {
        reachedStripe();
        await stripeMayAnswer;
        return real.createPaymentIntent(request);
      },
    };
    const slowDeps = deps({ paymentGateway: async () => slow });
    const header = ['Idempotency-Key', 'slow-key-1'];
    try {
      const first = invoke('esim', slowDeps, bodies.esim, header);
      await firstReachedStripe; // the first request holds the key and waits inside "Stripe"
      const duplicate = await invoke('esim', slowDeps, bodies.esim, header);
      expect(duplicate).toEqual({
        status: 409,
        contentType: 'application/json',
        body: { detail: 'A request with this Idempotency-Key is still in progress; retry later.', code: 'idempotency_request_in_progress' },
        replayed: undefined,
      });
      releaseStripe();
      const original = await first;
      expect(original.status).toBe(201);
      const retry = await invoke('esim', slowDeps, bodies.esim, header);
      expect(retry).toEqual({ ...original, replayed: 'true' });
    } finally {
      releaseStripe();
      idempotencyTimings.waitMs = waitMs;
    }
  });
});

describe('checkout configuration', () => {
  const read = (env: Record<string, string>) =>
    readConfiguration(functionConfigs['checkout-esim'], { AWS_REGION: 'eu-west-2', TABLE_NAME: 't', ...env }, 'checkout-esim');

  it('reads STOCK_HOLD_MINUTES (default 30) and refuses a value that is not a positive number', () => {
    // The SDK settings the environment leaves unset, at the SDK's defaults (shared/adapters/aws/sdk-settings.ts).
    const sdkDefaults = { useFipsEndpoint: false, useDualstackEndpoint: false, accountIdEndpointMode: 'preferred', authSchemePreference: [], defaultsMode: 'legacy' };
    expect(read({})).toEqual({ region: 'eu-west-2', tableName: 't', stockHoldMinutes: 30, ...sdkDefaults });
    expect(read({ STOCK_HOLD_MINUTES: '0.5', STRIPE_API_BASE: 'http://127.0.0.1:12111' })).toEqual({
      region: 'eu-west-2',
      tableName: 't',
      stockHoldMinutes: 0.5,
      stripeApiBase: 'http://127.0.0.1:12111',
      ...sdkDefaults,
    });
    for (const value of ['0', '-5', 'soon']) {
      expect(() => read({ STOCK_HOLD_MINUTES: value })).toThrow(
        `checkout-esim: invalid configuration: STOCK_HOLD_MINUTES must be a positive number, not ${JSON.stringify(value)}`,
      );
    }
  });
});
