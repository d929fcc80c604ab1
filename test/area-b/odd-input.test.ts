import { describe, expect, it } from 'vitest';
import { checkoutExampleBodies } from '../../local/checkout-examples';
import { useShopRuntime } from '../support/shop-runtime';
import { documents, errorAnswer, errorParts, post, readOrder, uuidPattern, type HttpAnswer } from './support/checkout-api';

/**
 * Issue #10, "no input reaches a 5xx", for the checkouts: a deeply nested ignored field with
 * an Idempotency-Key (the canonical JSON used to recurse), text that is not well-formed
 * Unicode, and odd Idempotency-Key headers.
 */

const seed = {
  plans: [
    { sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' },
    { sku: 'PHYSICAL-SIM-UK', name: 'Physical SIM', category: 'physical', published: true, price: '9.99' },
    { sku: 'IOT-CONTRACT-1GB', name: 'IoT contract 1 GB', category: 'iot_contract', published: true, price: '18.00' },
  ],
  stock: Array.from({ length: 20 }, (_, index) => ({ iccid: `89445000000000097${String(index + 1).padStart(2, '0')}`, kind: 'esim' })),
};

const db = documents();

const { runtime, stripe } = useShopRuntime(seed, { db });

/** A B1 body as JSON text, with `extra` (JSON text of more members, starting with a comma) spliced in. */
const esimJson = (email: string, extra = '') =>
  `{"cart":[{"catalog_sku":"TRAVEL-EU-5GB","quantity":1}],"customer_email":"${email}","customer_country":"GB"${extra}}`;

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const expectCreated = (answer: HttpAnswer) => {
  expect({ status: answer.status, contentType: answer.contentType, replayed: answer.headers.get('idempotent-replayed') }).toEqual({
    status: 201,
    contentType: 'application/json',
    replayed: null,
  });
  const created = answer.body as { order_id: string };
  expect(answer.body).toEqual({
    order_id: expect.stringMatching(uuidPattern),
    client_secret: stripe.requestFor(created.order_id)!.clientSecret,
    currency: 'GBP',
    subtotal: '12.00',
    tax_amount: '2.40',
    amount_total: '14.40',
  });
  return created.order_id;
};

describe('checkout with an Idempotency-Key and an ignored field nested very deep', () => {
  for (const [label, nested] of [
    ['arrays 10,000 deep', nestedArrays(10_000)],
    ['objects 10,000 deep', nestedObjects(10_000)],
    ['arrays 200,000 deep', nestedArrays(200_000)],
  ] as const) {
    it(`answers 201, then replays it, then 409 for another body (${label})`, async () => {
      const key = `deep-${label.replaceAll(/\W+/g, '-')}`;
      const email = `${key}@gmail.com`;
      const first = await post(runtime.baseUrl, '/api/v1/checkout', esimJson(email, `,"ignored":${nested}`), { 'Idempotency-Key': key });
      const orderId = expectCreated(first);
      // The same body with other whitespace and key order is the same request.
      const again = await post(runtime.baseUrl, '/api/v1/checkout', `{ "ignored": ${nested}, ${esimJson(email).slice(1)}`, {
        'Idempotency-Key': key,
      });
      expect({ status: again.status, replayed: again.headers.get('idempotent-replayed'), text: again.text }).toEqual({
        status: 201,
        replayed: 'true',
        text: first.text,
      });
      const other = await post(runtime.baseUrl, '/api/v1/checkout', esimJson(email, `,"ignored":[${nested}]`), { 'Idempotency-Key': key });
      expect(errorParts(other)).toEqual(
        errorAnswer(409, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request body.'),
      );
      expect(stripe.requests.filter((request) => request.metadata.order_id === orderId)).toHaveLength(1);
    });
  }
});

describe('checkout text that is not well-formed Unicode', () => {
  const wellFormed = (field: string) =>
    `${field} must be well-formed Unicode text without U+FFFE, U+FFFF or control characters other than tab and line breaks.`;

  it('answers 400 invalid_request for a lone surrogate in catalog_sku instead of looking up a plan (a SKU is letters, digits, ".", "_" and "-" since issue #31, so no plan "T?" can exist to collide with)', async () => {
    const answer = await post(
      runtime.baseUrl,
      '/api/v1/checkout',
      '{"cart":[{"catalog_sku":"T\\ud800","quantity":1}],"customer_email":"sku@gmail.com","customer_country":"GB"}',
    );
    expect(errorParts(answer)).toEqual(errorAnswer(400, 'invalid_request', wellFormed('cart[0].catalog_sku')));
  });

  it('answers 400 invalid_request for a lone surrogate, U+FFFE, U+FFFF or a control character in a name or phone', async () => {
    for (const [member, field] of [
      ['"customer_name":"Ada \\udc00"', 'customer_name'],
      ['"customer_name":"Ada \\ufffe"', 'customer_name'],
      ['"customer_phone":"+44\\uffff"', 'customer_phone'],
      ['"customer_name":"Ada\\u0000"', 'customer_name'],
      ['"customer_name":"Ada\\u001b[31m"', 'customer_name'],
    ] as const) {
      const answer = await post(runtime.baseUrl, '/api/v1/checkout', esimJson('names@gmail.com', `,${member}`));
      expect(errorParts(answer)).toEqual(errorAnswer(400, 'invalid_request', wellFormed(field)));
    }
  });

  it("answers the address's own code for a scoped address field, and invalid_request for line2", async () => {
    const physical = (address: string) =>
      `{"cart":[{"catalog_sku":"PHYSICAL-SIM-UK","quantity":1}],"customer_email":"post@example.com","customer_country":"GB","customer_name":"Ada","shipping_address":${address}}`;
    expect(
      errorParts(await post(runtime.baseUrl, '/api/v1/physical-checkout', physical('{"line1":"1 Way","city":"Lon\\ud800don","postal_code":"N1","country":"GB"}'))),
    ).toEqual(errorAnswer(400, 'invalid_shipping_address', wellFormed('shipping_address.city')));
    expect(
      errorParts(
        await post(runtime.baseUrl, '/api/v1/physical-checkout', physical('{"line1":"1 Way","line2":"\\uffff","city":"London","postal_code":"N1","country":"GB"}')),
      ),
    ).toEqual(errorAnswer(400, 'invalid_request', wellFormed('shipping_address.line2')));
  });

  it('answers data_processing_consent_required for consent wording that is not well-formed', async () => {
    // The banner's working IoT request, its consent wording holding a lone surrogate.
    const example = checkoutExampleBodies.iot;
    const consent = { ...(example.data_processing_consent as object), wording: 'I agree WORDING' };
    const iot = JSON.stringify({ ...example, data_processing_consent: consent }).replace('WORDING', '\\ud83d');
    expect(errorParts(await post(runtime.baseUrl, '/api/v1/iot-physical-checkout', iot))).toEqual(
      errorAnswer(400, 'data_processing_consent_required', wellFormed('data_processing_consent.wording')),
    );
  });

  it('ignores a customer_id that is not well-formed (it never gates checkout) and keeps a well-formed one', async () => {
    const ignored = expectCreated(await post(runtime.baseUrl, '/api/v1/checkout', esimJson('gid-odd@gmail.com', ',"customer_id":"gid://shop/Customer/1\\ud800"')));
    expect((await readOrder(db, runtime.tableName, ignored))?.customer_id).toBeUndefined();
    const kept = expectCreated(await post(runtime.baseUrl, '/api/v1/checkout', esimJson('gid-ok@gmail.com', ',"customer_id":"gid://shop/Customer/2😀"')));
    expect((await readOrder(db, runtime.tableName, kept))?.customer_id).toBe('gid://shop/Customer/2😀');
  });

  it('accepts astral characters, tabs and line breaks in free text', async () => {
    const orderId = expectCreated(await post(runtime.baseUrl, '/api/v1/checkout', esimJson('emoji@gmail.com', ',"customer_name":"Ada 😀\\tLovelace\\n"')));
    expect((await readOrder(db, runtime.tableName, orderId))?.customer_name).toBe('Ada 😀\tLovelace\n');
  });
});

describe('odd Idempotency-Key headers', () => {
  const malformed = errorAnswer(400, 'invalid_request', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.');

  it('answers 400 invalid_request for a key of 256 bytes or 9 KB (10 KB of headers is the gateway 431), with a tab, or with a Latin-1 byte', async () => {
    for (const key of ['k'.repeat(256), 'k'.repeat(9_000), 'a\tb', 'caf\u00e9']) {
      expect(errorParts(await post(runtime.baseUrl, '/api/v1/checkout', esimJson('keys@gmail.com'), { 'Idempotency-Key': key }))).toEqual(malformed);
    }
  });
});
