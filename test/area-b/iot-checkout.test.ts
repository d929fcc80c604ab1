import { beforeEach, describe, expect, it } from 'vitest';
import { useShopRuntime } from '../support/shop-runtime';
import {
  documents,
  errorAnswer,
  errorParts,
  post,
  readOrder,
  uuidPattern,
} from './support/checkout-api';

const path = '/api/v1/iot-physical-checkout';

// No stock at all: IoT contracts have no stock rule.
const seed = {
  plans: [
    { sku: 'IOT-CONTRACT-1GB', name: 'IoT contract 1 GB', category: 'iot_contract', published: true, price: '18.00' },
    { sku: 'IOT-CONTRACT-CUSTOM', name: 'Custom', category: 'iot_contract', published: true, price: null },
    { sku: 'PHYSICAL-SIM-UK', name: 'Physical SIM', category: 'physical', published: true, price: '9.99' },
  ],
};

const address = (overrides: Record<string, unknown> = {}) => ({
  line1: '5 Rue de la Paix',
  city: 'Paris',
  postal_code: '75002',
  country: 'FR',
  ...overrides,
});

const consent = (overrides: Record<string, unknown> = {}) => ({
  agreed: true,
  wording: 'I agree that my data is processed to fulfil this contract.',
  given_at: '2026-11-20T10:00:00+01:00',
  ...overrides,
});

const body = (overrides: Record<string, unknown> = {}) => ({
  cart: [{ sku: 'IOT-CONTRACT-1GB', quantity: 3 }],
  customer_email: 'ada@fleet.example',
  customer_country: 'FR',
  customer_first_name: 'Ada',
  customer_last_name: 'Lovelace',
  data_processing_consent: consent(),
  billing_address: address({ line1: '1 Billing Way' }),
  shipping_address: address(),
  ...overrides,
});

const db = documents();

const { runtime, stripe } = useShopRuntime(seed, { db });

beforeEach(() => stripe.setMode('ok'));

const consentRequired = (detail: string) => errorAnswer(400, 'data_processing_consent_required', detail);

describe('B3 authentication and JSON', () => {
  it('answers 401 service_token_required and invalid_service_token', async () => {
    const missing = await post(runtime.baseUrl, path, body(), { Authorization: undefined });
    expect(errorParts(missing)).toEqual(
      errorAnswer(401, 'service_token_required', 'An Authorization: Bearer <service token> header is required.'),
    );
    const wrong = await post(runtime.baseUrl, path, body(), { Authorization: 'Bearer nope' });
    expect(errorParts(wrong)).toEqual(errorAnswer(401, 'invalid_service_token', 'The service token is not valid.'));
  });

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const answer = await post(runtime.baseUrl, path, "{'single': 'quotes'}");
    expect(errorParts(answer)).toEqual(errorAnswer(400, 'invalid_json', 'The request body is not valid JSON.'));
  });
});

describe('B3 validation', () => {
  const cases: Array<[string, unknown, string, string]> = [
    ['a cart line with catalog_sku instead of sku', body({ cart: [{ catalog_sku: 'IOT-CONTRACT-1GB', quantity: 1 }] }), 'invalid_request', 'cart[0].sku is required.'],
    ['a missing customer_first_name', body({ customer_first_name: undefined }), 'invalid_request', 'customer_first_name is required.'],
    ['a blank customer_last_name', body({ customer_last_name: ' ' }), 'invalid_request', 'customer_last_name must be a non-empty string of at most 100 characters.'],
    ['customer_first_name over 100 characters', body({ customer_first_name: 'a'.repeat(101) }), 'invalid_request', 'customer_first_name must be a non-empty string of at most 100 characters.'],
    ['company_name over 200 characters', body({ company_name: 'c'.repeat(201) }), 'invalid_request', 'company_name must be a string of at most 200 characters.'],
    ['company_registration_number over 64 characters', body({ company_registration_number: '1'.repeat(65) }), 'invalid_request', 'company_registration_number must be a string of at most 64 characters.'],
    ['vat_registration_number over 64 characters', body({ vat_registration_number: 'V'.repeat(65) }), 'invalid_request', 'vat_registration_number must be a string of at most 64 characters.'],
    ['title over 200 characters', body({ title: 't'.repeat(201) }), 'invalid_request', 'title must be a string of at most 200 characters.'],
    ['a contact that is not an object', body({ purchasing_contact: 'Bob' }), 'invalid_request', 'purchasing_contact must be a contact object.'],
    ['a contact with a malformed e-mail', body({ invoice_contact: { name: 'Ivy', email: 'ivy@' } }), 'invalid_request', 'invoice_contact.email must be an e-mail address of at most 254 characters.'],
    ['a marketing_consent without wording', body({ marketing_consent: { agreed: false, given_at: '2026-11-20T10:00:00Z' } }), 'invalid_request', 'marketing_consent.wording is required.'],
    ['billing_address.line2 over 200 characters', body({ billing_address: address({ line2: 'l'.repeat(201) }) }), 'invalid_request', 'billing_address.line2 must be a string of at most 200 characters.'],
    ['a bad customer_country before address and consent errors', body({ customer_country: 'EU', shipping_address: undefined, data_processing_consent: undefined }), 'invalid_request', 'customer_country must be a two-letter ISO 3166-1 alpha-2 country code.'],
    ['everything missing: shipping first', body({ shipping_address: undefined, billing_address: undefined, data_processing_consent: undefined }), 'invalid_shipping_address', 'shipping_address is required.'],
    ['a shipping name over 200 characters', body({ shipping_address: address({ name: 'n'.repeat(201) }) }), 'invalid_shipping_address', 'shipping_address.name must be a string of at most 200 characters.'],
    ['a missing shipping postal_code', body({ shipping_address: address({ postal_code: undefined }) }), 'invalid_shipping_address', 'shipping_address.postal_code is required.'],
    ['billing and consent missing: billing first', body({ billing_address: undefined, data_processing_consent: undefined }), 'invalid_billing_address', 'billing_address is required.'],
    ['a bad billing line1', body({ billing_address: address({ line1: 42 }) }), 'invalid_billing_address', 'billing_address.line1 must be a non-empty string of at most 200 characters.'],
    ['a bad billing city', body({ billing_address: address({ city: '' }) }), 'invalid_billing_address', 'billing_address.city must be a non-empty string of at most 100 characters.'],
    ['a bad billing country', body({ billing_address: address({ country: 'France' }) }), 'invalid_billing_address', 'billing_address.country must be a two-letter ISO 3166-1 alpha-2 country code.'],
  ];

  it.each(cases)('answers 400 for %s', async (_name, requestBody, code, detail) => {
    const answer = await post(runtime.baseUrl, path, requestBody);
    expect(errorParts(answer)).toEqual(errorAnswer(400, code, detail));
  });

  const consentCases: Array<[string, unknown, string]> = [
    ['missing', undefined, 'data_processing_consent is required.'],
    ['not an object', true, 'data_processing_consent must be a consent object.'],
    ['not agreed', consent({ agreed: false }), 'data_processing_consent.agreed must be true.'],
    ['agreed as the string "true"', consent({ agreed: 'true' }), 'data_processing_consent.agreed must be true.'],
    ['without wording', consent({ wording: undefined }), 'data_processing_consent.wording is required.'],
    ['with blank wording', consent({ wording: '' }), 'data_processing_consent.wording must be a non-empty string of at most 10000 characters.'],
    ['without given_at', consent({ given_at: undefined }), 'data_processing_consent.given_at is required.'],
    ['with a given_at that is not a timestamp', consent({ given_at: 'yesterday' }), 'data_processing_consent.given_at must be an ISO-8601 timestamp with a time zone.'],
  ];

  it.each(consentCases)('answers 400 data_processing_consent_required for a consent %s', async (_name, value, detail) => {
    const answer = await post(runtime.baseUrl, path, body({ data_processing_consent: value }));
    expect(errorParts(answer)).toEqual(consentRequired(detail));
  });
});

describe('B3 catalog and payment', () => {
  it('answers 404 unknown_sku for a non-IoT SKU and 422 no_price for a plan without price', async () => {
    const unknown = await post(runtime.baseUrl, path, body({ cart: [{ sku: 'PHYSICAL-SIM-UK', quantity: 1 }] }));
    expect(errorParts(unknown)).toEqual(
      errorAnswer(404, 'unknown_sku', 'cart[0].sku "PHYSICAL-SIM-UK" matches no published IoT contract plan.'),
    );
    const noPrice = await post(runtime.baseUrl, path, body({ cart: [{ sku: 'IOT-CONTRACT-CUSTOM', quantity: 1 }] }));
    expect(errorParts(noPrice)).toEqual(errorAnswer(422, 'no_price', 'cart[0].sku "IOT-CONTRACT-CUSTOM" has no price.'));
  });

  it('creates the order without stock, applying the name fallbacks and recording consent as given', async () => {
    const answer = await post(
      runtime.baseUrl,
      path,
      body({
        marketing_consent: { agreed: false, wording: 'Send me news.', given_at: '2026-11-20T09:59:00Z' },
        head_user: { name: 'Grace', email: 'grace@fleet.example' },
        invoice_contact: null,
        sms_opt_in: 'yes',
        customer_phone: '+33612345678',
      }),
    );
    expect(answer.status, answer.text).toBe(201);
    const orderId = (answer.body as { order_id: string }).order_id;
    expect(orderId).toMatch(uuidPattern);
    const stripeRequest = stripe.requestFor(orderId)!;
    // FR 20% of £54.00.
    expect(answer.body).toEqual({
      order_id: orderId,
      client_secret: stripeRequest.clientSecret,
      currency: 'GBP',
      subtotal: '54.00',
      tax_amount: '10.80',
      amount_total: '64.80',
    });
    expect(stripeRequest).toMatchObject({
      amount: 6480,
      currency: 'gbp',
      metadata: { order_id: orderId, endpoint: 'iot' },
      idempotencyKey: `order-${orderId}`,
      receiptEmail: 'ada@fleet.example',
    });
    const order = await readOrder(db, runtime.tableName, orderId);
    expect(order).toEqual({
      PK: `ORDER#${orderId}`,
      SK: 'ORDER',
      type: 'order',
      id: orderId,
      endpoint: 'iot',
      status: 'pending',
      lines: [
        { sku: 'IOT-CONTRACT-1GB', name: 'IoT contract 1 GB', category: 'iot_contract', quantity: 3, unit_price: '18.00', line_total: '54.00' },
      ],
      currency: 'GBP',
      subtotal: '54.00',
      tax_amount: '10.80',
      amount_total: '64.80',
      amount_total_pence: 6480,
      vat_rate: '20',
      vat_country: 'FR',
      customer_email: 'ada@fleet.example',
      customer_email_lower: 'ada@fleet.example',
      // The checkout request's id (its X-Request-Id), which fulfilment's logs name as origin_correlation_id.
      correlation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      customer_country: 'FR',
      customer_first_name: 'Ada',
      customer_last_name: 'Lovelace',
      company_name: 'Ada Lovelace',
      customer_phone: '+33612345678',
      head_user: { name: 'Grace', email: 'grace@fleet.example' },
      marketing_consent: { agreed: false, wording: 'Send me news.', given_at: '2026-11-20T09:59:00Z' },
      data_processing_consent: consent(),
      billing_address: { line1: '1 Billing Way', city: 'Paris', postal_code: '75002', country: 'FR' },
      shipping_address: { name: 'Ada Lovelace', line1: '5 Rue de la Paix', city: 'Paris', postal_code: '75002', country: 'FR' },
      held_units: [],
      payment_intent_id: stripeRequest.paymentIntentId,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('keeps a given company_name and shipping name, and never copies one address into the other', async () => {
    const answer = await post(
      runtime.baseUrl,
      path,
      body({
        company_name: 'Analytical Engines Ltd',
        shipping_address: address({ name: 'Goods In', line2: 'Dock 4', region: 'Île-de-France', phone: '+33100000000' }),
        sms_opt_in: true,
      }),
    );
    expect(answer.status, answer.text).toBe(201);
    const order = await readOrder(db, runtime.tableName, (answer.body as { order_id: string }).order_id);
    expect(order).toMatchObject({
      company_name: 'Analytical Engines Ltd',
      sms_opt_in: true,
      billing_address: { line1: '1 Billing Way', city: 'Paris', postal_code: '75002', country: 'FR' },
      shipping_address: {
        name: 'Goods In',
        line1: '5 Rue de la Paix',
        line2: 'Dock 4',
        city: 'Paris',
        region: 'Île-de-France',
        postal_code: '75002',
        country: 'FR',
        phone: '+33100000000',
      },
    });
    expect(order!.billing_address).not.toHaveProperty('line2');
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
    stripe.setMode('card_declined');
    const before = stripe.requests.length;
    const failed = await post(runtime.baseUrl, path, body());
    expect(errorParts(failed)).toEqual(
      errorAnswer(502, 'stripe_error', 'The payment processor could not create the payment intent; try again later.'),
    );
    const orderId = stripe.requests[before]!.metadata.order_id!;
    expect(await readOrder(db, runtime.tableName, orderId)).toMatchObject({ status: 'failed', failure_reason: 'stripe_error' });
  });
});
