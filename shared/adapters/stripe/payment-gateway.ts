import Stripe from 'stripe';

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

/** Where a Stripe-compatible API is (STRIPE_API_BASE), as the SDK's host/port/protocol options. */
export const stripeApiAddress = (apiBase: string | undefined): Pick<Stripe.StripeConfig, 'host' | 'port' | 'protocol'> => {
  if (!apiBase) return {};
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port !== '' ? Number(url.port) : protocol === 'http' ? 80 : 443,
    protocol,
  };
};

const gateways = new Map<string, PaymentGateway>();

/**
 * The Stripe adapter, built once per container per secret key and API base (a rotated key
 * gets a new client). It creates payment intents with the official SDK; the SDK retries
 * network errors and 5xx answers itself, safely, under the given idempotency key.
 */
export const stripeGateway = (secretKey: string, apiBase?: string): PaymentGateway => {
  const cacheKey = `${secretKey}|${apiBase ?? ''}`;
  let gateway = gateways.get(cacheKey);
  if (!gateway) {
    const stripe = new Stripe(secretKey, {
      ...stripeApiAddress(apiBase),
      maxNetworkRetries: 1,
      timeout: 5_000,
      telemetry: false,
    });
    gateway = {
      createPaymentIntent: async (request) => {
        const intent = await stripe.paymentIntents.create(
          {
            amount: request.amount,
            currency: request.currency,
            metadata: request.metadata,
            receipt_email: request.receiptEmail,
            ...(request.description !== undefined ? { description: request.description } : {}),
          },
          { idempotencyKey: request.idempotencyKey },
        );
        if (!intent.client_secret) throw new Error(`payment intent ${intent.id} has no client_secret`);
        return { id: intent.id, clientSecret: intent.client_secret };
      },
    };
    gateways.set(cacheKey, gateway);
  }
  return gateway;
};
