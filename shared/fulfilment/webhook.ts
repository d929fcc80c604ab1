import { ApiError } from '../errors/api-error';
import { appendLogKeys } from '../observability/invocation';
import { logger } from '../observability/logger';
import { parseFulfilmentMessage } from './message';
import type { FulfilmentQueue } from './queue';
import { verifyStripeSignature } from './stripe-signature';
import { readPaymentEvent } from './stripe-event';
import type { WebhookAnswer } from './webhook-schema';

/** Stripe's own tolerance for the signature's timestamp: five minutes. */
export const signatureToleranceSeconds = 300;

/** What the webhook talks to. */
export interface WebhookDeps {
  /** STRIPE_WEBHOOK_SECRET (`whsec_...`), undefined when not configured. */
  webhookSecret: () => Promise<string | undefined>;
  /**
   * The fulfilment queue, undefined when FULFILMENT_QUEUE_URL is not configured. It is the
   * only place a payment event is kept: SQS is durable when deployed, and the local runtime's
   * queues survive a restart with `--persist` (local/sqs-local.ts).
   */
  queue: () => FulfilmentQueue | undefined;
}

/** One webhook request: the body exactly as Stripe sent it, and its Stripe-Signature header. */
export interface WebhookRequest {
  rawBody: Buffer;
  signature: string | undefined;
}

/** The 200 answer to every verified event, acted on or not: the type of webhookAnswerSchema (./webhook-schema.ts). */
export type { WebhookAnswer } from './webhook-schema';

const invalidSignature = () =>
  new ApiError(400, 'invalid_signature', 'The Stripe-Signature header is missing or does not match the body.');

/**
 * Receives one Stripe webhook delivery. The signature is verified on the raw bytes as the
 * Stripe SDK's constructEvent verifies it (./stripe-signature.ts: HMAC-SHA256 under
 * STRIPE_WEBHOOK_SECRET, timestamp within five minutes); a missing or bad one is 400
 * `invalid_signature` and nothing happens. A verified
 * payment_intent.succeeded / payment_failed / canceled event whose intent carries an order id
 * is validated (./stripe-event.ts) and put on the fulfilment queue; every other event, and a
 * verified body the service cannot act on (not JSON, `null`, odd field types, ids that are
 * not ids), is acknowledged 200 and logged once: Stripe would only deliver the same signed
 * bytes again. Nothing else is done here, so Stripe gets its 2xx fast; the amount is checked
 * against the order by the consumer.
 */
export const receiveStripeEvent = async (deps: WebhookDeps, request: WebhookRequest): Promise<WebhookAnswer> => {
  const secret = await deps.webhookSecret();
  if (!secret) {
    logger.error('STRIPE_WEBHOOK_SECRET is not configured; Stripe events are refused');
    throw new ApiError(503, 'webhook_not_configured', 'The Stripe webhook is not configured in this environment.');
  }
  const verified = verifyStripeSignature({
    body: request.rawBody,
    header: request.signature,
    secret,
    toleranceSeconds: signatureToleranceSeconds,
    now: Date.now(),
  });
  if (!verified) throw invalidSignature();
  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder('utf-8').decode(request.rawBody));
  } catch {
    // Signed by Stripe but not JSON: nothing to act on, and a retry would bring the same bytes.
    logger.warn('stripe event ignored: the body is not JSON', { bytes: request.rawBody.length });
    return { received: true };
  }

  const reading = readPaymentEvent(event);
  if (!('message' in reading)) {
    (reading.level === 'INFO' ? logger.info : logger.warn)(reading.ignored, reading.details);
    return { received: true };
  }
  const { message } = reading;
  // The consumer's own parser on the very body that is sent: nothing reaches the queue that
  // the consumer would refuse (and dead-letter after five receives).
  parseFulfilmentMessage(JSON.stringify(message));
  const { event_id: eventId, type, order_id: orderId, payment_intent_id: paymentIntentId } = message;
  appendLogKeys({ order_id: orderId, event_id: eventId });
  const queue = deps.queue();
  if (!queue) {
    // 500: Stripe retries the delivery until the queue is configured.
    throw new Error('FULFILMENT_QUEUE_URL is not configured; the payment event could not be queued');
  }
  // Only queued, nothing written: a failure here is a 500, and Stripe, without its 2xx,
  // delivers the event again.
  await queue.enqueue(message);
  logger.info('payment event queued for fulfilment', { type, payment_intent_id: paymentIntentId });
  return { received: true };
};
