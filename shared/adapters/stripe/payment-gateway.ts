import { defaultStripeRequestPolicy, StripeApiError, stripePost, type StripeRequestPolicy } from './stripe-api';

/** What checkout asks of the payment processor. */
export interface PaymentIntentRequest {
  /** Amount in the currency's minor unit (pence). */
  amount: number;
  /** Lower-case ISO currency code, e.g. `gbp`. */
  currency: string;
  /** Copied into the intent's metadata; `order_id` is how payment events find their order. */
  metadata: Record<string, string>;
  /** Where the processor sends its receipt. */
  receiptEmail: string;
  description?: string;
  /** Makes retries of the same creation safe (the processor returns the first intent). */
  idempotencyKey: string;
}

/** The payment intent created. */
export interface PaymentIntentResult {
  id: string;
  clientSecret: string;
}

/** The payment processor port: create a payment intent. Any failure is thrown. */
export interface PaymentGateway {
  createPaymentIntent(request: PaymentIntentRequest): Promise<PaymentIntentResult>;
}

/**
 * The Stripe adapter for a secret key and an optional Stripe-compatible API base
 * (STRIPE_API_BASE; unset: Stripe itself). Each payment intent is one
 * `POST /v1/payment_intents` (./stripe-api.ts: plain node:https, the pinned API version,
 * the caller's idempotency key, one retry of a connection failure, 409 or 5xx). Every
 * failure, an answer without `id` or `client_secret` included, is a StripeApiError; checkout
 * answers any of them 502 `stripe_error`. Cheap to build (no client object): nothing is cached.
 */
export const stripeGateway = (
  secretKey: string,
  apiBase?: string,
  policy: StripeRequestPolicy = defaultStripeRequestPolicy,
): PaymentGateway => ({
  createPaymentIntent: async (request) => {
    const intent = await stripePost(
      {
        secretKey,
        apiBase,
        path: '/v1/payment_intents',
        fields: {
          amount: request.amount,
          currency: request.currency,
          metadata: request.metadata,
          receipt_email: request.receiptEmail,
          description: request.description,
        },
        idempotencyKey: request.idempotencyKey,
      },
      policy,
    );
    const { id, client_secret: clientSecret } = intent;
    if (typeof id !== 'string' || id === '' || typeof clientSecret !== 'string' || clientSecret === '') {
      throw new StripeApiError(`payment intent ${typeof id === 'string' ? id : '(no id)'} has no client_secret`, { statusCode: 200 });
    }
    return { id, clientSecret };
  },
});
