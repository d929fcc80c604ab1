import { describe, expect, it } from 'vitest';
import { errorAnswer, errorParts, post, serviceToken } from '../area-b/support/checkout-api';
import { useTestRuntime } from '../support/runtime';

// STRIPE_SECRET_KEY=none: no payment processor (LOCAL-CONTRACT.md), and no emulator either.
const runtime = useTestRuntime({
  seed: { plans: [{ sku: 'TRAVEL-EU-5GB', name: 'Europe 5 GB', category: 'travel', published: true, price: '12.00' }], stock: [{ iccid: '8944500000000067001', kind: 'esim' }] },
  env: { STOREFRONT_SERVICE_TOKEN: serviceToken, STRIPE_SECRET_KEY: 'none', STRIPE_API_BASE: 'http://127.0.0.1:9' },
});

describe('STRIPE_SECRET_KEY=none', () => {
  it('gives the handlers no Stripe key or base, and checkouts answer 503 stripe_not_configured', async () => {
    expect({ key: runtime.env.STRIPE_SECRET_KEY, base: runtime.env.STRIPE_API_BASE, mode: runtime.payments.mode }).toEqual({
      key: undefined, base: undefined, mode: 'none',
    });
    const answer = await post(runtime.baseUrl, '/api/v1/checkout', {
      cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }], customer_email: 'none@emulator.example', customer_country: 'GB',
    });
    expect(errorParts(answer)).toEqual(errorAnswer(503, 'stripe_not_configured', 'The payment processor is not configured in this environment.'));
  });

  it('serves no emulator: /_local/stripe/ is the JSON 404', async () => {
    const response = await fetch(`${runtime.baseUrl}/_local/stripe/v1/payment_intents`);
    expect({ status: response.status, body: await response.json() }).toEqual({ status: 404, body: { detail: 'Not found.', code: 'not_found' } });
  });

  it('shows the developer console without Pay buttons: no form, so no token, and a POST is refused', async () => {
    const page = await fetch(`${runtime.baseUrl}/_local/`);
    const html = await page.text();
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(html).toContain('No Pay buttons: STRIPE_SECRET_KEY is set, so this runtime does not run the Stripe emulator.');
    const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
    expect(token).toBeUndefined();
    const action = await fetch(`${runtime.baseUrl}/_local/orders/00000000-0000-4000-8000-000000000000/pay`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: runtime.baseUrl },
      body: 'token=anything',
    });
    expect({ status: action.status, body: await action.json() }).toEqual({
      status: 403,
      body: { detail: "The form token is missing or not this console's: reload the console and try again.", code: 'invalid_form_token' },
    });
  });
});
