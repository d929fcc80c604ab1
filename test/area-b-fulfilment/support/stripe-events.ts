import { randomBytes } from 'node:crypto';
import { stripeApiVersion } from '../../../shared/adapters/stripe/api-version';
import Stripe from 'stripe';

/** The webhook secret the fulfilment tests configure. */
export const webhookSecret = 'whsec_test_fulfilment_4Ld8Qm2Zx7Rk9Pw3';

/** The payment events the service acts on, and one it ignores. */
export type PaymentEventType = 'payment_intent.succeeded' | 'payment_intent.payment_failed' | 'payment_intent.canceled' | 'charge.refunded';

/** A Stripe event id or payment intent id look-alike. */
export const stripeId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** What a test event says about its payment intent. */
export interface IntentFacts {
  orderId?: string;
  paymentIntentId: string;
  /** Pence. */
  amount: number;
  currency?: string;
  eventId?: string;
}

const intentStatus: Record<PaymentEventType, string> = {
  'payment_intent.succeeded': 'succeeded',
  'payment_intent.payment_failed': 'requires_payment_method',
  'payment_intent.canceled': 'canceled',
  'charge.refunded': 'succeeded',
};

/** A Stripe event as Stripe posts it (snapshot payload, API version of the SDK), as JSON text. */
export const stripeEvent = (type: PaymentEventType, facts: IntentFacts): string =>
  JSON.stringify({
    id: facts.eventId ?? stripeId('evt'),
    object: 'event',
    api_version: stripeApiVersion,
    created: Math.floor(Date.now() / 1000),
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: stripeId('req'), idempotency_key: null },
    data: {
      object: {
        id: facts.paymentIntentId,
        object: 'payment_intent',
        amount: facts.amount,
        amount_received: type === 'payment_intent.succeeded' ? facts.amount : 0,
        currency: facts.currency ?? 'gbp',
        status: intentStatus[type],
        metadata: facts.orderId ? { order_id: facts.orderId } : {},
        ...(type === 'payment_intent.payment_failed'
          ? { last_payment_error: { code: 'card_declined', message: 'Your card was declined.' } }
          : {}),
      },
    },
  });

/** A Stripe-Signature header for a payload, made by the Stripe SDK exactly as Stripe signs. */
export const signature = (payload: string, options: { secret?: string; timestamp?: number } = {}): string =>
  Stripe.webhooks.generateTestHeaderString({ payload, secret: options.secret ?? webhookSecret, timestamp: options.timestamp });

/** The answer of the webhook route. */
export interface WebhookAnswer {
  status: number;
  contentType: string | null;
  body: unknown;
}

/** POSTs a payload to the webhook with the given Stripe-Signature (none when undefined). */
export const postToWebhook = async (
  baseUrl: string,
  payload: string | Buffer,
  stripeSignature: string | undefined,
  contentType = 'application/json; charset=utf-8',
): Promise<WebhookAnswer> => {
  const response = await fetch(`${baseUrl}/api/v1/webhooks/stripe`, {
    method: 'POST',
    headers: { 'Content-Type': contentType, 'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', ...(stripeSignature ? { 'Stripe-Signature': stripeSignature } : {}) },
    body: payload,
  });
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, contentType: response.headers.get('content-type'), body };
};

/** Sends a correctly signed event to the webhook. */
export const sendEvent = (baseUrl: string, type: PaymentEventType, facts: IntentFacts): Promise<WebhookAnswer> => {
  const payload = stripeEvent(type, facts);
  return postToWebhook(baseUrl, payload, signature(payload));
};
