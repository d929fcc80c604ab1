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
  serviceToken,
  stripeTestKey,
  uuidPattern,
} from './support/checkout-api';
import { logLinesOf, metricLines } from '../support/log-lines';

const path = '/api/v1/checkout';

const seed = {
  plans: [
    { sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' },
    { sku: 'TRAVEL-DAY-PASS', name: 'Day pass', category: 'travel', published: true, price: '3.00' },
    { sku: 'TRAVEL-ASIA-5GB', name: 'Asia 5 GB', category: 'travel', published: true, price: null },
    { sku: 'TRAVEL-RETIRED', name: 'Retired', category: 'travel', published: false, price: '10.00' },
    { sku: 'TRAVEL-TOPUP-1GB', name: 'Travel top-up 1 GB', category: 'travel_topup', published: true, price: '5.00' },
    { sku: 'BUSINESS-TRAVEL-10GB', name: 'Business Travel 10 GB', category: 'business_travel', published: true, price: '35.00' },
    { sku: 'BUSINESS-TOPUP-5GB', name: 'Business top-up 5 GB', category: 'business_topup', published: true, price: '15.00' },
    { sku: 'PHYSICAL-SIM-UK', name: 'Physical SIM', category: 'physical', published: true, price: '9.99' },
    { sku: 'IOT-CONTRACT-1GB', name: 'IoT 1 GB', category: 'iot_contract', published: true, price: '18.00' },
  ],
  stock: Array.from({ length: 30 }, (_, index) => ({ iccid: `89445000000000090${String(index + 1).padStart(2, '0')}`, kind: 'esim' })),
  accounts: [
    { email: 'sam@travel.example', type: 'traveler', name: 'Sam', phone: '+447700900123', sms_opt_in: true },
    { email: 'pat@smallbiz.example', type: 'consumer', name: 'Pat', phone: null, sms_opt_in: false },
    { email: 'ops@initech.example', type: 'business', name: 'Initech Ops', phone: null, sms_opt_in: false },
    { email: 'casey@example.com', type: 'consumer', name: 'Casey', phone: null, sms_opt_in: false },
  ],
  devices: [
    { iccid: '8944500000000008001', owner: 'sam@travel.example', assigned_to: null },
    { iccid: '8944500000000008002', owner: 'ops@initech.example', assigned_to: 'alex@initech.example' },
    { iccid: '8944500000000008003', owner: 'ops@initech.example', assigned_to: null },
  ],
};

const line = (catalog_sku: string, quantity = 1, topup_iccid?: string) => ({
  catalog_sku,
  quantity,
  ...(topup_iccid ? { topup_iccid } : {}),
});

const body = (overrides: Record<string, unknown> = {}) => ({
  cart: [line('TRAVEL-EU-5GB')],
  customer_email: 'traveller@gmail.com',
  customer_country: 'GB',
  ...overrides,
});

const db = documents();

const { runtime, stripe } = useShopRuntime(seed, { db });

beforeEach(() => stripe.setMode('ok'));

/** Asserts a 201 and returns its body; checks it against the Stripe request made for it. */
const expectCreated = async (
  answer: Awaited<ReturnType<typeof post>>,
  amounts: { subtotal: string; tax_amount: string; amount_total: string },
) => {
  const created = answer.body as { order_id: string; client_secret: string };
  expect(answer.status, answer.text).toBe(201);
  expect(answer.contentType).toBe('application/json');
  expect(created.order_id).toMatch(uuidPattern);
  const stripeRequest = stripe.requestFor(created.order_id);
  expect(stripeRequest).toBeDefined();
  expect(answer.body).toEqual({
    order_id: created.order_id,
    client_secret: stripeRequest!.clientSecret,
    currency: 'GBP',
    ...amounts,
  });
  expect(stripeRequest!.clientSecret).toMatch(new RegExp(`^${stripeRequest!.paymentIntentId}_secret_`));
  return { orderId: created.order_id, stripeRequest: stripeRequest! };
};

describe('B1 authentication', () => {
  it('answers 401 service_token_required without an Authorization header', async () => {
    const answer = await post(runtime.baseUrl, path, body(), { Authorization: undefined });
    expect(errorParts(answer)).toEqual(
      errorAnswer(401, 'service_token_required', 'An Authorization: Bearer <service token> header is required.'),
    );
  });

  it('answers 401 service_token_required for another scheme or an empty bearer token', async () => {
    for (const authorization of [`Basic ${serviceToken}`, 'Bearer ', serviceToken]) {
      const answer = await post(runtime.baseUrl, path, body(), { Authorization: authorization });
      expect(errorParts(answer)).toEqual(
        errorAnswer(401, 'service_token_required', 'An Authorization: Bearer <service token> header is required.'),
      );
    }
  });

  it('answers 401 invalid_service_token for a wrong token, before looking at the body', async () => {
    for (const token of ['wrong', `${serviceToken}x`, serviceToken.slice(0, -1)]) {
      const answer = await post(runtime.baseUrl, path, '{not json', { Authorization: `Bearer ${token}` });
      expect(errorParts(answer)).toEqual(errorAnswer(401, 'invalid_service_token', 'The service token is not valid.'));
    }
  });

  it('accepts the bearer scheme in any case', async () => {
    const answer = await post(runtime.baseUrl, path, '{not json', { Authorization: `bearer ${serviceToken}` });
    expect(errorParts(answer)).toEqual(errorAnswer(400, 'invalid_json', 'The request body is not valid JSON.'));
  });
});

describe('B1 request validation', () => {
  it('answers 400 invalid_json for a malformed or empty body', async () => {
    for (const text of ['{"cart": [', '', 'cart=1']) {
      const answer = await post(runtime.baseUrl, path, text);
      expect(errorParts(answer)).toEqual(errorAnswer(400, 'invalid_json', 'The request body is not valid JSON.'));
    }
  });

  const invalid: Array<[string, unknown, string]> = [
    ['a body that is not an object', [body()], 'The request body must be a JSON object.'],
    ['a missing cart', { customer_email: 'a@gmail.com', customer_country: 'GB' }, 'cart is required.'],
    ['an empty cart', body({ cart: [] }), 'cart must be an array of 1 to 20 cart lines.'],
    ['a cart that is not an array', body({ cart: { catalog_sku: 'TRAVEL-EU-5GB' } }), 'cart must be an array of 1 to 20 cart lines.'],
    ['21 cart lines', body({ cart: Array.from({ length: 21 }, () => line('TRAVEL-EU-5GB')) }), 'cart must be an array of 1 to 20 cart lines.'],
    ['a line that is not an object', body({ cart: ['TRAVEL-EU-5GB'] }), 'cart[0] must be a cart line object.'],
    ['a line without catalog_sku', body({ cart: [{ quantity: 1 }] }), 'cart[0].catalog_sku is required.'],
    ['a fractional quantity', body({ cart: [line('TRAVEL-EU-5GB'), line('TRAVEL-EU-5GB'), line('TRAVEL-EU-5GB', 1.5)] }), 'cart[2].quantity must be an integer from 1 to 10.'],
    ['quantity 0', body({ cart: [line('TRAVEL-EU-5GB', 0)] }), 'cart[0].quantity must be an integer from 1 to 10.'],
    ['quantity 11', body({ cart: [line('TRAVEL-EU-5GB', 11)] }), 'cart[0].quantity must be an integer from 1 to 10.'],
    ['a quantity string', body({ cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: '2' }] }), 'cart[0].quantity must be an integer from 1 to 10.'],
    ['a missing quantity', body({ cart: [{ catalog_sku: 'TRAVEL-EU-5GB' }] }), 'cart[0].quantity is required.'],
    ['a top-up line with quantity 2', body({ cart: [line('TRAVEL-TOPUP-1GB', 2, '8944500000000008001')] }), 'cart[0].quantity must be exactly 1 for a top-up line.'],
    ['a malformed topup_iccid', body({ cart: [line('TRAVEL-TOPUP-1GB', 1, '89445-0001')] }), 'cart[0].topup_iccid must be an ICCID of 1 to 20 digits.'],
    ['a 21-digit topup_iccid', body({ cart: [line('TRAVEL-TOPUP-1GB', 1, '894450000000000800100')] }), 'cart[0].topup_iccid must be an ICCID of 1 to 20 digits.'],
    ['a missing customer_email', body({ customer_email: undefined }), 'customer_email is required.'],
    ['a malformed customer_email', body({ customer_email: 'traveller at gmail.com' }), 'customer_email must be an e-mail address of at most 254 characters.'],
    ['a missing customer_country', body({ customer_country: undefined }), 'customer_country is required.'],
    ['a three-letter country', body({ customer_country: 'GBR' }), 'customer_country must be a two-letter ISO 3166-1 alpha-2 country code.'],
    ['a country code that ISO does not assign', body({ customer_country: 'XX' }), 'customer_country must be a two-letter ISO 3166-1 alpha-2 country code.'],
    ['UK instead of GB', body({ customer_country: 'UK' }), 'customer_country must be a two-letter ISO 3166-1 alpha-2 country code.'],
    ['customer_name over 200 characters', body({ customer_name: 'n'.repeat(201) }), 'customer_name must be a string of at most 200 characters.'],
    ['customer_phone over 32 characters', body({ customer_phone: `+44${'7'.repeat(30)}` }), 'customer_phone must be a string of at most 32 characters.'],
    ['the first failing field in schema order', body({ cart: [line('TRAVEL-EU-5GB', 0)], customer_email: undefined }), 'cart[0].quantity must be an integer from 1 to 10.'],
  ];

  it.each(invalid)('answers 400 invalid_request for %s', async (_name, requestBody, detail) => {
    const answer = await post(runtime.baseUrl, path, requestBody);
    expect(errorParts(answer)).toEqual(errorAnswer(400, 'invalid_request', detail));
  });

  it('answers 400 invalid_request for a malformed Idempotency-Key header', async () => {
    const answer = await post(runtime.baseUrl, path, body(), { 'Idempotency-Key': 'has spaces in it' });
    expect(errorParts(answer)).toEqual(
      errorAnswer(400, 'invalid_request', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.'),
    );
  });
});

describe('B1 catalog and pricing', () => {
  it('answers 404 unknown_sku for a SKU without a plan, an unpublished plan, and another checkout’s plan', async () => {
    for (const sku of ['NO-SUCH-PLAN', 'TRAVEL-RETIRED', 'PHYSICAL-SIM-UK', 'IOT-CONTRACT-1GB']) {
      const answer = await post(runtime.baseUrl, path, body({ cart: [line('TRAVEL-EU-5GB'), line(sku)] }));
      expect(errorParts(answer)).toEqual(
        errorAnswer(404, 'unknown_sku', `cart[1].catalog_sku ${JSON.stringify(sku)} matches no published eSIM plan.`),
      );
    }
  });

  it('quotes at most 64 characters of an unknown SKU', async () => {
    const sku = `X${'9'.repeat(99)}`;
    const answer = await post(runtime.baseUrl, path, body({ cart: [line(sku)] }));
    expect(errorParts(answer)).toEqual(
      errorAnswer(404, 'unknown_sku', `cart[0].catalog_sku "${sku.slice(0, 64)}"… (100 characters) matches no published eSIM plan.`),
    );
  });

  it('answers 422 no_price for a published plan without a price, after every SKU is known', async () => {
    const answer = await post(runtime.baseUrl, path, body({ cart: [line('TRAVEL-ASIA-5GB')] }));
    expect(errorParts(answer)).toEqual(errorAnswer(422, 'no_price', 'cart[0].catalog_sku "TRAVEL-ASIA-5GB" has no price.'));
    const both = await post(runtime.baseUrl, path, body({ cart: [line('TRAVEL-ASIA-5GB'), line('NO-SUCH-PLAN')] }));
    expect(errorParts(both)).toEqual(
      errorAnswer(404, 'unknown_sku', 'cart[1].catalog_sku "NO-SUCH-PLAN" matches no published eSIM plan.'),
    );
  });

  it('answers 400 invalid_request for a top-up plan without topup_iccid and for topup_iccid on a new-eSIM plan', async () => {
    const missing = await post(runtime.baseUrl, path, body({ cart: [line('TRAVEL-TOPUP-1GB')] }));
    expect(errorParts(missing)).toEqual(
      errorAnswer(400, 'invalid_request', 'cart[0].topup_iccid is required: "TRAVEL-TOPUP-1GB" is a top-up plan.'),
    );
    const extra = await post(runtime.baseUrl, path, body({ cart: [line('TRAVEL-EU-5GB', 1, '8944500000000008001')] }));
    expect(errorParts(extra)).toEqual(
      errorAnswer(400, 'invalid_request', 'cart[0].topup_iccid is only allowed with a top-up plan; "TRAVEL-EU-5GB" is not one.'),
    );
  });
});

describe('B1 VAT and the payment intent', () => {
  it('charges 20% VAT in GB, holds one eSIM per unit, writes the order, then creates the intent', async () => {
    const answer = await post(
      runtime.baseUrl,
      path,
      body({ customer_email: 'Traveller@Gmail.com', customer_name: 'Tess', customer_phone: '+447700900999', sms_opt_in: true, customer_id: 'gid://shop/Customer/42', cart: [line('TRAVEL-EU-5GB', 2)] }),
    );
    const { orderId, stripeRequest } = await expectCreated(answer, { subtotal: '24.00', tax_amount: '4.80', amount_total: '28.80' });
    expect(stripeRequest).toMatchObject({
      authorization: `Bearer ${stripeTestKey}`,
      idempotencyKey: `order-${orderId}`,
      contentType: 'application/x-www-form-urlencoded',
      amount: 2880,
      currency: 'gbp',
      metadata: { order_id: orderId, endpoint: 'esim' },
      receiptEmail: 'Traveller@Gmail.com',
    });

    const order = await readOrder(db, runtime.tableName, orderId);
    const held = heldBy(await readStock(db, runtime.tableName, 'esim'), orderId);
    expect(held).toHaveLength(2);
    expect(order).toEqual({
      PK: `ORDER#${orderId}`,
      SK: 'ORDER',
      type: 'order',
      id: orderId,
      endpoint: 'esim',
      status: 'pending',
      lines: [
        { sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', quantity: 2, unit_price: '12.00', line_total: '24.00' },
      ],
      currency: 'GBP',
      subtotal: '24.00',
      tax_amount: '4.80',
      amount_total: '28.80',
      amount_total_pence: 2880,
      vat_rate: '20',
      vat_country: 'GB',
      customer_email: 'Traveller@Gmail.com',
      customer_email_lower: 'traveller@gmail.com',
      // The checkout request's id (its X-Request-Id), which fulfilment's logs name as origin_correlation_id.
      correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      customer_country: 'GB',
      customer_name: 'Tess',
      customer_phone: '+447700900999',
      customer_id: 'gid://shop/Customer/42',
      sms_opt_in: true,
      held_units: expect.arrayContaining(held.map((unit) => ({ kind: 'esim', iccid: unit.iccid }))),
      hold_expires_at: held[0]!.hold_expires_at,
      payment_intent_id: stripeRequest.paymentIntentId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(order!.held_units).toHaveLength(2);
    // Default hold: 30 minutes from creation.
    expect(held[0]!.hold_expires_at).toBe(Math.floor(Date.parse(order!.created_at) / 1000) + 30 * 60);
  });

  it('charges an EU member state its standard rate, rounded half-up to the penny (FI 25.5%)', async () => {
    // 25.5% of £3.00 is 76.5p: half-up gives 77p (half-even would give 76p).
    const answer = await post(runtime.baseUrl, path, body({ customer_country: 'fi', cart: [line('TRAVEL-DAY-PASS')] }));
    const { orderId, stripeRequest } = await expectCreated(answer, { subtotal: '3.00', tax_amount: '0.77', amount_total: '3.77' });
    expect(stripeRequest).toMatchObject({ amount: 377, currency: 'gbp', metadata: { order_id: orderId }, idempotencyKey: `order-${orderId}` });
    expect(await readOrder(db, runtime.tableName, orderId)).toMatchObject({ vat_rate: '25.5', vat_country: 'FI', customer_country: 'FI' });
  });

  it('charges DE 19% on the order subtotal', async () => {
    const answer = await post(runtime.baseUrl, path, body({ customer_country: 'DE', cart: [line('TRAVEL-EU-5GB'), line('TRAVEL-DAY-PASS', 3)] }));
    // 19% of £21.00 = £3.99.
    const { stripeRequest } = await expectCreated(answer, { subtotal: '21.00', tax_amount: '3.99', amount_total: '24.99' });
    expect(stripeRequest).toMatchObject({ amount: 2499, currency: 'gbp' });
  });

  it('charges no VAT outside the UK and the EU (US 0%)', async () => {
    const answer = await post(runtime.baseUrl, path, body({ customer_country: 'US' }));
    const { orderId, stripeRequest } = await expectCreated(answer, { subtotal: '12.00', tax_amount: '0.00', amount_total: '12.00' });
    expect(stripeRequest).toMatchObject({ amount: 1200, currency: 'gbp', metadata: { order_id: orderId }, idempotencyKey: `order-${orderId}` });
    expect(await readOrder(db, runtime.tableName, orderId)).toMatchObject({ vat_rate: '0', vat_country: 'US' });
  });

  it('records sms_opt_in only for a JSON boolean: the string "true" is accepted as no answer', async () => {
    const stringTrue = await post(runtime.baseUrl, path, body({ sms_opt_in: 'true', customer_phone: '+447700900111' }));
    const { orderId } = await expectCreated(stringTrue, { subtotal: '12.00', tax_amount: '2.40', amount_total: '14.40' });
    const stored = await readOrder(db, runtime.tableName, orderId);
    expect(stored).not.toHaveProperty('sms_opt_in');
    expect(stored).toMatchObject({ customer_phone: '+447700900111' });

    const explicitFalse = await post(runtime.baseUrl, path, body({ sms_opt_in: false }));
    const created = await expectCreated(explicitFalse, { subtotal: '12.00', tax_amount: '2.40', amount_total: '14.40' });
    expect(await readOrder(db, runtime.tableName, created.orderId)).toMatchObject({ sms_opt_in: false });
  });
});

describe('B1 category rules', () => {
  it('answers 400 mixed_cart_not_allowed for Business and Travel plans in one cart', async () => {
    const answer = await post(
      runtime.baseUrl,
      path,
      body({ customer_email: 'ops@initech.example', cart: [line('BUSINESS-TRAVEL-10GB'), line('TRAVEL-EU-5GB')] }),
    );
    expect(errorParts(answer)).toEqual(
      errorAnswer(400, 'mixed_cart_not_allowed', 'A cart may not mix Business plans with Travel plans.'),
    );
  });

  it('answers 422 business_email_required for a Business cart on a free e-mail provider', async () => {
    for (const email of ['founder@gmail.com', 'someone@OUTLOOK.com', 'x@gmx.de']) {
      const answer = await post(runtime.baseUrl, path, body({ customer_email: email, cart: [line('BUSINESS-TRAVEL-10GB')] }));
      expect(errorParts(answer)).toEqual(
        errorAnswer(
          422,
          'business_email_required',
          'customer_email must be a business address for Business plans, not one of a free or personal e-mail provider.',
        ),
      );
    }
  });

  it('answers 403 business_purchase_not_allowed when the e-mail has a consumer or traveler account', async () => {
    for (const email of ['pat@smallbiz.example', 'SAM@travel.example', 'casey@example.com']) {
      const answer = await post(runtime.baseUrl, path, body({ customer_email: email, cart: [line('BUSINESS-TRAVEL-10GB')] }));
      expect(errorParts(answer)).toEqual(
        errorAnswer(
          403,
          'business_purchase_not_allowed',
          'customer_email belongs to an existing consumer or traveler account, which cannot buy Business plans.',
        ),
      );
    }
  });

  it('sells Business plans to a business account and to a new business e-mail', async () => {
    for (const email of ['ops@initech.example', 'buyer@newco.example']) {
      const answer = await post(runtime.baseUrl, path, body({ customer_email: email, cart: [line('BUSINESS-TRAVEL-10GB')] }));
      await expectCreated(answer, { subtotal: '35.00', tax_amount: '7.00', amount_total: '42.00' });
    }
  });
});

describe('B1 top-ups', () => {
  const notFound = errorAnswer(404, 'esim_not_found', 'cart[0].topup_iccid matches no eSIM owned by or assigned to customer_email.');

  it('lets the owner top up their own device, in any e-mail case, without holding stock', async () => {
    const before = (await readStock(db, runtime.tableName, 'esim')).filter((unit) => unit.held_by).length;
    const answer = await post(
      runtime.baseUrl,
      path,
      body({ customer_email: 'Sam@Travel.Example', cart: [line('TRAVEL-TOPUP-1GB', 1, '8944500000000008001')] }),
    );
    const { orderId } = await expectCreated(answer, { subtotal: '5.00', tax_amount: '1.00', amount_total: '6.00' });
    const order = await readOrder(db, runtime.tableName, orderId);
    expect(order).toMatchObject({
      lines: [
        { sku: 'TRAVEL-TOPUP-1GB', name: 'Travel top-up 1 GB', category: 'travel_topup', quantity: 1, unit_price: '5.00', line_total: '5.00', topup_iccid: '8944500000000008001' },
      ],
      held_units: [],
    });
    expect(order).not.toHaveProperty('hold_expires_at');
    expect((await readStock(db, runtime.tableName, 'esim')).filter((unit) => unit.held_by).length).toBe(before);
  });

  it('lets a fleet owner top up a device assigned to a team member', async () => {
    const answer = await post(
      runtime.baseUrl,
      path,
      body({ customer_email: 'ops@initech.example', cart: [line('BUSINESS-TOPUP-5GB', 1, '8944500000000008002')] }),
    );
    await expectCreated(answer, { subtotal: '15.00', tax_amount: '3.00', amount_total: '18.00' });
  });

  it('lets the assigned team member top up, with no account of their own', async () => {
    const answer = await post(
      runtime.baseUrl,
      path,
      body({ customer_email: 'alex@initech.example', cart: [line('BUSINESS-TOPUP-5GB', 1, '8944500000000008002')] }),
    );
    await expectCreated(answer, { subtotal: '15.00', tax_amount: '3.00', amount_total: '18.00' });
  });

  it('answers the same 404 esim_not_found for an unassigned device of someone else and for an unknown ICCID', async () => {
    const unassigned = await post(
      runtime.baseUrl,
      path,
      body({ customer_email: 'alex@initech.example', cart: [line('BUSINESS-TOPUP-5GB', 1, '8944500000000008003')] }),
    );
    const unknown = await post(
      runtime.baseUrl,
      path,
      body({ customer_email: 'alex@initech.example', cart: [line('BUSINESS-TOPUP-5GB', 1, '8944500000000008999')] }),
    );
    const othersDevice = await post(
      runtime.baseUrl,
      path,
      body({ customer_email: 'sam@travel.example', cart: [line('TRAVEL-TOPUP-1GB', 1, '8944500000000008002')] }),
    );
    expect(errorParts(unassigned)).toEqual(notFound);
    expect(errorParts(othersDevice)).toEqual(notFound);
    expect(unknown.status).toBe(unassigned.status);
    expect(unknown.text).toBe(unassigned.text);
  });
});

describe('B1 payment processor failures', () => {
  it('answers 503 stripe_not_configured without a secret key, holding nothing', async () => {
    const key = process.env.STRIPE_SECRET_KEY;
    const heldBefore = (await readStock(db, runtime.tableName, 'esim')).filter((unit) => unit.held_by).length;
    const requestsBefore = stripe.requests.length;
    delete process.env.STRIPE_SECRET_KEY;
    try {
      const answer = await post(runtime.baseUrl, path, body());
      expect(errorParts(answer)).toEqual(
        errorAnswer(503, 'stripe_not_configured', 'The payment processor is not configured in this environment.'),
      );
    } finally {
      process.env.STRIPE_SECRET_KEY = key;
    }
    expect((await readStock(db, runtime.tableName, 'esim')).filter((unit) => unit.held_by).length).toBe(heldBefore);
    expect(stripe.requests.length).toBe(requestsBefore);
  });

  it('answers 502 stripe_error when Stripe fails, releasing the hold and failing the order', async () => {
    for (const mode of ['server_error', 'card_declined'] as const) {
      stripe.setMode(mode);
      const requestsBefore = stripe.requests.length;
      let answer!: Awaited<ReturnType<typeof post>>;
      const lines = await logLinesOf(async () => {
        answer = await post(runtime.baseUrl, path, body({ cart: [line('TRAVEL-EU-5GB', 2)] }));
      });
      expect(errorParts(answer)).toEqual(
        errorAnswer(502, 'stripe_error', 'The payment processor could not create the payment intent; try again later.'),
      );
      // Counted as a failed payment intent (docs/operations.md), on the request's correlation id.
      const failed = metricLines(lines).filter((metric) => 'PaymentIntentsFailed' in metric);
      expect(failed).toEqual([
        expect.objectContaining({ PaymentIntentsFailed: 1, code: expect.any(String), correlation_id: answer.headers.get('x-request-id') }),
      ]);
      const attempt = stripe.requests[requestsBefore]!;
      const orderId = attempt.metadata.order_id!;
      expect(attempt).toMatchObject({ amount: 2880, currency: 'gbp', idempotencyKey: `order-${orderId}` });
      expect(await readOrder(db, runtime.tableName, orderId)).toMatchObject({ status: 'failed', failure_reason: 'stripe_error' });
      expect(heldBy(await readStock(db, runtime.tableName, 'esim'), orderId)).toEqual([]);
    }
  });
});

describe('B1 Idempotency-Key', () => {
  it('replays the first response for a retry with the same key and body', async () => {
    const requestBody = body({ customer_email: 'retry@gmail.com' });
    const first = await post(runtime.baseUrl, path, requestBody, { 'Idempotency-Key': 'retry-key-1' });
    const { orderId } = await expectCreated(first, { subtotal: '12.00', tax_amount: '2.40', amount_total: '14.40' });
    // The same JSON with other key order and whitespace is the same body.
    const reordered = `{ "customer_country": "GB", "customer_email": "retry@gmail.com", "cart": [ { "quantity": 1, "catalog_sku": "TRAVEL-EU-5GB" } ] }`;
    const second = await post(runtime.baseUrl, path, reordered, { 'Idempotency-Key': 'retry-key-1' });
    expect(second.status).toBe(201);
    expect(second.contentType).toBe('application/json');
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.text).toBe(first.text);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(stripe.requests.filter((request) => request.metadata.order_id === orderId)).toHaveLength(1);
    expect(heldBy(await readStock(db, runtime.tableName, 'esim'), orderId)).toHaveLength(1);
  });

  it('answers 409 idempotency_key_reused for the same key with another body', async () => {
    const first = await post(runtime.baseUrl, path, body({ customer_email: 'reuse@gmail.com' }), { 'Idempotency-Key': 'reuse-key-1' });
    await expectCreated(first, { subtotal: '12.00', tax_amount: '2.40', amount_total: '14.40' });
    const second = await post(runtime.baseUrl, path, body({ customer_email: 'reuse@gmail.com', customer_country: 'US' }), {
      'Idempotency-Key': 'reuse-key-1',
    });
    expect(errorParts(second)).toEqual(
      errorAnswer(409, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request body.'),
    );
  });

  it('runs concurrent duplicates once: all get the first response', async () => {
    const requestBody = body({ customer_email: 'burst@gmail.com' });
    const answers = await Promise.all(
      Array.from({ length: 3 }, () => post(runtime.baseUrl, path, requestBody, { 'Idempotency-Key': 'burst-key-1' })),
    );
    const original = answers.find((answer) => answer.headers.get('idempotent-replayed') === null)!;
    const { orderId } = await expectCreated(original, { subtotal: '12.00', tax_amount: '2.40', amount_total: '14.40' });
    for (const answer of answers) {
      expect(answer.status).toBe(201);
      expect(answer.text).toBe(original.text);
    }
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(2);
    expect(stripe.requests.filter((request) => request.metadata.order_id === orderId)).toHaveLength(1);
  });

  it('does not replay a failure: a retry after stripe_error runs again', async () => {
    stripe.setMode('server_error');
    const requestBody = body({ customer_email: 'again@gmail.com' });
    const failed = await post(runtime.baseUrl, path, requestBody, { 'Idempotency-Key': 'again-key-1' });
    expect(failed.status).toBe(502);
    stripe.setMode('ok');
    const retried = await post(runtime.baseUrl, path, requestBody, { 'Idempotency-Key': 'again-key-1' });
    await expectCreated(retried, { subtotal: '12.00', tax_amount: '2.40', amount_total: '14.40' });
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('B1 stock', () => {
  // Last in this file: it empties the eSIM stock.
  it('answers 409 out_of_stock when no eSIM is free, while a top-up needs no stock', async () => {
    await resetStock(db, runtime.tableName, 'esim', []);
    const answer = await post(runtime.baseUrl, path, body({ cart: [line('TRAVEL-EU-5GB')] }));
    expect(errorParts(answer)).toEqual(errorAnswer(409, 'out_of_stock', 'Not enough eSIM stock for this cart.'));
    const mixed = await post(
      runtime.baseUrl,
      path,
      body({ customer_email: 'sam@travel.example', cart: [line('TRAVEL-TOPUP-1GB', 1, '8944500000000008001'), line('TRAVEL-DAY-PASS')] }),
    );
    expect(errorParts(mixed)).toEqual(errorAnswer(409, 'out_of_stock', 'Not enough eSIM stock for this cart.'));
    const topup = await post(
      runtime.baseUrl,
      path,
      body({ customer_email: 'sam@travel.example', cart: [line('TRAVEL-TOPUP-1GB', 1, '8944500000000008001')] }),
    );
    await expectCreated(topup, { subtotal: '5.00', tax_amount: '1.00', amount_total: '6.00' });
  });
});
