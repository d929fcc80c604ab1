import type { ScriptedAnswer, WireRequest } from '../../../local/stripe-emulator/standalone';

/**
 * Exact Stripe answers for the adapter's wire tests (test/area-b/stripe-gateway.test.ts), which
 * script the suites' Stripe stand-in (local/stripe-emulator/standalone.ts) with them.
 */

/** A PaymentIntent, as Stripe answers its creation, for the form fields sent. */
export const paymentIntentAnswer = (request: WireRequest, id = 'pi_3WireTest0000000000000001'): ScriptedAnswer => {
  const form = new URLSearchParams(request.body);
  const metadata = Object.fromEntries([...form].filter(([name]) => name.startsWith('metadata[')).map(([name, value]) => [name.slice(9, -1), value]));
  return {
    status: 200,
    headers: { 'Request-Id': 'req_wire0001' },
    body: {
      id,
      object: 'payment_intent',
      amount: Number(form.get('amount')),
      currency: form.get('currency'),
      client_secret: `${id}_secret_WireTestSecret0000000001`,
      description: form.get('description'),
      livemode: false,
      metadata,
      receipt_email: form.get('receipt_email'),
      status: 'requires_payment_method',
    },
  };
};

/** Stripe's error answer: `{"error": {...}}` with its Request-Id. */
export const stripeErrorAnswer = (status: number, error: Record<string, string>, headers: Record<string, string> = {}): ScriptedAnswer => ({
  status,
  headers: { 'Request-Id': `req_err${status}`, ...headers },
  body: { error },
});
