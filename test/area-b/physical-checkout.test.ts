import { beforeEach, describe, expect, it } from 'vitest';
import { useShopRuntime } from '../support/shop-runtime';
import {
  documents,
  errorAnswer,
  errorParts,
  heldBy,
  post,
  readOrder,
  readStock,
  resetStock,
  uuidPattern,
} from './support/checkout-api';

const path = '/api/v1/physical-checkout';

const seed = {
  plans: [
    { sku: 'PHYSICAL-SIM-UK', name: 'Physical SIM (UK)', category: 'physical', published: true, price: '9.99' },
    { sku: 'PHYSICAL-SIM-BULK', name: 'Bulk pack', category: 'physical', published: true, price: null },
    { sku: 'PHYSICAL-SIM-OLD', name: 'Old SIM', category: 'physical', published: false, price: '5.00' },
    { sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' },
  ],
};

const stockIccids = (count: number, from = 1) =>
  Array.from({ length: count }, (_, index) => `89445000000000091${String(from + index).padStart(2, '0')}`);

const address = (overrides: Record<string, unknown> = {}) => ({
  line1: '1 High Street',
  city: 'London',
  postal_code: 'SW1A 1AA',
  country: 'GB',
  ...overrides,
});

const body = (overrides: Record<string, unknown> = {}) => ({
  cart: [{ catalog_sku: 'PHYSICAL-SIM-UK', quantity: 1 }],
  customer_email: 'buyer@shop.example',
  customer_country: 'GB',
  customer_name: 'Bea Buyer',
  shipping_address: address(),
  ...overrides,
});

const db = documents();

const { runtime, stripe } = useShopRuntime(seed, { db });

beforeEach(async () => {
  stripe.setMode('ok');
  await resetStock(db, runtime.tableName, 'physical', stockIccids(10));
});

const expectCreated = (answer: Awaited<ReturnType<typeof post>>, amounts: Record<string, string>) => {
  expect(answer.status, answer.text).toBe(201);
  const created = answer.body as { order_id: string };
  expect(created.order_id).toMatch(uuidPattern);
  const stripeRequest = stripe.requestFor(created.order_id)!;
  expect(answer.contentType).toBe('application/json');
  expect(answer.body).toEqual({ order_id: created.order_id, client_secret: stripeRequest.clientSecret, currency: 'GBP', ...amounts });
  return { orderId: created.order_id, stripeRequest };
};

describe('B2 authentication and JSON', () => {
  it('answers 401 service_token_required and invalid_service_token', async () => {
    const missing = await post(runtime.baseUrl, path, body(), { Authorization: undefined });
    expect(errorParts(missing)).toEqual(
      errorAnswer(401, 'service_token_required', 'An Authorization: Bearer <service token> header is required.'),
    );
    const wrong = await post(runtime.baseUrl, path, body(), { Authorization: 'Bearer not-the-token' });
    expect(errorParts(wrong)).toEqual(errorAnswer(401, 'invalid_service_token', 'The service token is not valid.'));
  });

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const answer = await post(runtime.baseUrl, path, '{"cart":');
    expect(errorParts(answer)).toEqual(errorAnswer(400, 'invalid_json', 'The request body is not valid JSON.'));
  });
});

describe('B2 validation', () => {
  const cases: Array<[string, unknown, string, string]> = [
    ['an empty cart', body({ cart: [] }), 'invalid_request', 'cart must be an array of 1 to 20 cart lines.'],
    ['quantity 11', body({ cart: [{ catalog_sku: 'PHYSICAL-SIM-UK', quantity: 11 }] }), 'invalid_request', 'cart[0].quantity must be an integer from 1 to 10.'],
    ['a bad customer_country', body({ customer_country: 'G1' }), 'invalid_request', 'customer_country must be a two-letter ISO 3166-1 alpha-2 country code.'],
    ['customer_name over 200 characters', body({ customer_name: 'n'.repeat(201) }), 'invalid_request', 'customer_name must be a string of at most 200 characters.'],
    ['shipping_address.line2 over 200 characters', body({ shipping_address: address({ line2: 'l'.repeat(201) }) }), 'invalid_request', 'shipping_address.line2 must be a string of at most 200 characters.'],
    ['shipping_address.region over 100 characters', body({ shipping_address: address({ region: 'r'.repeat(101) }) }), 'invalid_request', 'shipping_address.region must be a string of at most 100 characters.'],
    ['shipping_address.phone over 32 characters', body({ shipping_address: address({ phone: '1'.repeat(33) }) }), 'invalid_request', 'shipping_address.phone must be a string of at most 32 characters.'],
    ['invalid_request before invalid_shipping_address', body({ customer_email: undefined, shipping_address: undefined }), 'invalid_request', 'customer_email is required.'],
    ['a missing shipping_address', body({ shipping_address: undefined }), 'invalid_shipping_address', 'shipping_address is required.'],
    ['a shipping_address that is not an object', body({ shipping_address: '1 High Street, London' }), 'invalid_shipping_address', 'shipping_address must be an address object.'],
    ['a missing line1', body({ shipping_address: address({ line1: undefined }) }), 'invalid_shipping_address', 'shipping_address.line1 is required.'],
    ['line1 over 200 characters', body({ shipping_address: address({ line1: 'l'.repeat(201) }) }), 'invalid_shipping_address', 'shipping_address.line1 must be a non-empty string of at most 200 characters.'],
    ['a blank city', body({ shipping_address: address({ city: '  ' }) }), 'invalid_shipping_address', 'shipping_address.city must be a non-empty string of at most 100 characters.'],
    ['postal_code over 20 characters', body({ shipping_address: address({ postal_code: 'P'.repeat(21) }) }), 'invalid_shipping_address', 'shipping_address.postal_code must be a non-empty string of at most 20 characters.'],
    ['a bad shipping country', body({ shipping_address: address({ country: 'ZZ' }) }), 'invalid_shipping_address', 'shipping_address.country must be a two-letter ISO 3166-1 alpha-2 country code.'],
    ['a shipping name over 200 characters', body({ shipping_address: address({ name: 'n'.repeat(201) }) }), 'invalid_shipping_address', 'shipping_address.name must be a string of at most 200 characters.'],
    ['neither customer_name nor shipping_address.name', body({ customer_name: undefined }), 'invalid_shipping_address', 'shipping_address.name is required when customer_name is absent (at least one of the two names is required).'],
    ['blank names on both sides', body({ customer_name: ' ', shipping_address: address({ name: '' }) }), 'invalid_shipping_address', 'shipping_address.name is required when customer_name is absent (at least one of the two names is required).'],
  ];

  it.each(cases)('answers 400 for %s', async (_name, requestBody, code, detail) => {
    const answer = await post(runtime.baseUrl, path, requestBody);
    expect(errorParts(answer)).toEqual(errorAnswer(400, code, detail));
  });
});

describe('B2 catalog, stock and payment', () => {
  it('answers 404 unknown_sku for a non-physical or unpublished SKU, and 422 no_price for a plan without price', async () => {
    for (const sku of ['TRAVEL-EU-5GB', 'PHYSICAL-SIM-OLD']) {
      const answer = await post(runtime.baseUrl, path, body({ cart: [{ catalog_sku: sku, quantity: 1 }] }));
      expect(errorParts(answer)).toEqual(
        errorAnswer(404, 'unknown_sku', `cart[0].catalog_sku ${JSON.stringify(sku)} matches no published physical SIM plan.`),
      );
    }
    const noPrice = await post(runtime.baseUrl, path, body({ cart: [{ catalog_sku: 'PHYSICAL-SIM-BULK', quantity: 1 }] }));
    expect(errorParts(noPrice)).toEqual(errorAnswer(422, 'no_price', 'cart[0].catalog_sku "PHYSICAL-SIM-BULK" has no price.'));
  });

  it('prices exactly and holds one physical SIM per unit (GB 20% of £29.97 = £5.99)', async () => {
    const answer = await post(runtime.baseUrl, path, body({ cart: [{ catalog_sku: 'PHYSICAL-SIM-UK', quantity: 3 }] }));
    const { orderId, stripeRequest } = expectCreated(answer, { subtotal: '29.97', tax_amount: '5.99', amount_total: '35.96' });
    expect(stripeRequest).toMatchObject({
      amount: 3596,
      currency: 'gbp',
      metadata: { order_id: orderId, endpoint: 'physical' },
      idempotencyKey: `order-${orderId}`,
      receiptEmail: 'buyer@shop.example',
    });
    expect(heldBy(await readStock(db, runtime.tableName, 'physical'), orderId)).toHaveLength(3);
  });

  it('charges IE 23% (£9.99 → £2.30 VAT)', async () => {
    const answer = await post(runtime.baseUrl, path, body({ customer_country: 'IE', shipping_address: address({ country: 'ie' }) }));
    const { orderId } = expectCreated(answer, { subtotal: '9.99', tax_amount: '2.30', amount_total: '12.29' });
    expect(await readOrder(db, runtime.tableName, orderId)).toMatchObject({ vat_rate: '23', shipping_address: { country: 'IE' } });
  });

  it('falls back from customer_name to shipping_address.name and the reverse', async () => {
    const onlyCustomer = await post(runtime.baseUrl, path, body({ customer_name: 'Bea Buyer' }));
    const first = expectCreated(onlyCustomer, { subtotal: '9.99', tax_amount: '2.00', amount_total: '11.99' });
    expect(await readOrder(db, runtime.tableName, first.orderId)).toMatchObject({
      customer_name: 'Bea Buyer',
      shipping_address: { name: 'Bea Buyer', line1: '1 High Street', city: 'London', postal_code: 'SW1A 1AA', country: 'GB' },
    });

    const onlyShipping = await post(runtime.baseUrl, path, body({ customer_name: undefined, shipping_address: address({ name: 'Reception, Acme' }) }));
    const second = expectCreated(onlyShipping, { subtotal: '9.99', tax_amount: '2.00', amount_total: '11.99' });
    expect(await readOrder(db, runtime.tableName, second.orderId)).toMatchObject({
      customer_name: 'Reception, Acme',
      shipping_address: { name: 'Reception, Acme' },
    });

    const both = await post(runtime.baseUrl, path, body({ customer_name: 'Bea Buyer', shipping_address: address({ name: 'Reception, Acme', phone: '+441234567890' }) }));
    const third = expectCreated(both, { subtotal: '9.99', tax_amount: '2.00', amount_total: '11.99' });
    const order = await readOrder(db, runtime.tableName, third.orderId);
    expect(order).toMatchObject({ customer_name: 'Bea Buyer', endpoint: 'physical', status: 'pending' });
    expect(order!.shipping_address).toEqual({
      name: 'Reception, Acme',
      line1: '1 High Street',
      city: 'London',
      postal_code: 'SW1A 1AA',
      country: 'GB',
      phone: '+441234567890',
    });
  });

  it('answers 409 out_of_stock when fewer free units exist than the cart needs, holding nothing', async () => {
    await resetStock(db, runtime.tableName, 'physical', stockIccids(3));
    const answer = await post(runtime.baseUrl, path, body({ cart: [{ catalog_sku: 'PHYSICAL-SIM-UK', quantity: 4 }] }));
    expect(errorParts(answer)).toEqual(errorAnswer(409, 'out_of_stock', 'Not enough physical SIM stock for this cart.'));
    expect((await readStock(db, runtime.tableName, 'physical')).filter((unit) => unit.held_by)).toEqual([]);
  });

  it('never oversells: 8 concurrent checkouts for 3 units give exactly 3 orders and 5 out_of_stock', async () => {
    await resetStock(db, runtime.tableName, 'physical', stockIccids(3));
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, index) => post(runtime.baseUrl, path, body({ customer_email: `racer${index}@shop.example` }))),
    );
    const created = answers.filter((answer) => answer.status === 201);
    const refused = answers.filter((answer) => answer.status !== 201);
    expect(created).toHaveLength(3);
    expect(refused).toHaveLength(5);
    for (const answer of refused) {
      expect(errorParts(answer)).toEqual(errorAnswer(409, 'out_of_stock', 'Not enough physical SIM stock for this cart.'));
    }
    const units = await readStock(db, runtime.tableName, 'physical');
    const orderIds = created.map((answer) => (answer.body as { order_id: string }).order_id);
    expect(new Set(units.map((unit) => unit.held_by))).toEqual(new Set(orderIds));
    for (const orderId of orderIds) {
      const order = await readOrder(db, runtime.tableName, orderId);
      expect(order!.held_units).toEqual(heldBy(units, orderId).map((unit) => ({ kind: 'physical', iccid: unit.iccid })));
    }
  });

  it('answers 503 stripe_not_configured without a key and 502 stripe_error when Stripe fails', async () => {
    const key = process.env.STRIPE_SECRET_KEY;
    delete process.env.STRIPE_SECRET_KEY;
    try {
      const answer = await post(runtime.baseUrl, path, body());
      expect(errorParts(answer)).toEqual(
        errorAnswer(503, 'stripe_not_configured', 'The payment processor is not configured in this environment.'),
      );
    } finally {
      process.env.STRIPE_SECRET_KEY = key;
    }
    stripe.setMode('server_error');
    const failed = await post(runtime.baseUrl, path, body());
    expect(errorParts(failed)).toEqual(
      errorAnswer(502, 'stripe_error', 'The payment processor could not create the payment intent; try again later.'),
    );
    expect((await readStock(db, runtime.tableName, 'physical')).filter((unit) => unit.held_by)).toEqual([]);
  });
});
