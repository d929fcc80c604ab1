import { isOrderId, isStripeId, paymentEventTypes, type FulfilmentMessage, type PaymentEventType } from './message';

/**
 * What the webhook makes of a verified Stripe event: the fulfilment message to queue, or why
 * it is ignored (answered 2xx and logged once: Stripe would only deliver the same signed
 * bytes again, so a retry cannot help).
 */
export type EventReading =
  | { message: FulfilmentMessage }
  | { ignored: string; level: 'INFO' | 'WARN'; details: Record<string, unknown> };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const longestLoggedText = 200;

/**
 * A field of an untrusted event as it may be logged: a string cut to 200 characters (JSON
 * escapes the rest), anything else only its kind (never the value itself: a deeply nested one
 * would exhaust JSON.stringify's stack, a huge one would flood the log).
 */
export const loggable = (value: unknown): string | number | boolean | null => {
  if (typeof value === 'string') return value.length > longestLoggedText ? `${value.slice(0, longestLoggedText)}…` : value;
  if (value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  return Array.isArray(value) ? '<array>' : `<${typeof value}>`;
};

/** ISO 4217's code for "no currency": stands in for a missing or odd currency, so that it matches no order. */
export const noCurrency = 'xxx';

/**
 * Reads a verified Stripe event (the parsed JSON, whatever it is) into a fulfilment message,
 * validating every field it uses before anything is logged, recorded or queued:
 *
 * - the body must be an object with an `id` (visible ASCII, 1 to 255 characters) and a string
 *   `type`; an event type other than the three payment events is ignored (INFO);
 * - `data.object` must be an object whose `metadata.order_id` is an order id (a lower-case
 *   UUID, as checkout makes them) and whose `id` is a payment intent id (visible ASCII, 1 to
 *   255); otherwise the event is ignored (WARN): it cannot be about one of our orders;
 * - `amount` (amount_received for a success) that is not a safe integer is sent as -1, and a
 *   `currency` that is not three letters as `xxx`: both match no order, so a success is
 *   flagged for review by the consumer rather than lost; `created` that is not a safe integer
 *   is sent as 0.
 *
 * The message therefore always passes the consumer's parseFulfilmentMessage, and its JSON is
 * plain ASCII that SQS carries.
 */
export const readPaymentEvent = (event: unknown): EventReading => {
  if (!isRecord(event)) {
    return { ignored: 'stripe event ignored: the body is not an event object', level: 'WARN', details: { body: loggable(event) } };
  }
  if (!isStripeId(event.id) || typeof event.type !== 'string') {
    return {
      ignored: 'stripe event ignored: no usable id or type',
      level: 'WARN',
      details: { event_id: loggable(event.id), type: loggable(event.type) },
    };
  }
  const eventId = event.id;
  if (!(paymentEventTypes as readonly string[]).includes(event.type)) {
    return { ignored: 'stripe event ignored', level: 'INFO', details: { event_id: eventId, type: loggable(event.type) } };
  }
  const type = event.type as PaymentEventType;
  const intent = isRecord(event.data) && isRecord(event.data.object) ? event.data.object : undefined;
  const orderId = intent && isRecord(intent.metadata) ? intent.metadata.order_id : undefined;
  if (!intent || !isOrderId(orderId)) {
    return {
      ignored: 'payment event without a usable metadata.order_id ignored',
      level: 'WARN',
      details: { event_id: eventId, type, order_id: loggable(orderId), payment_intent_id: loggable(intent?.id) },
    };
  }
  if (!isStripeId(intent.id)) {
    return {
      ignored: 'payment event without a usable payment intent id ignored',
      level: 'WARN',
      details: { event_id: eventId, type, order_id: orderId, payment_intent_id: loggable(intent.id) },
    };
  }
  const reported = type === 'payment_intent.succeeded' ? intent.amount_received : intent.amount;
  const currency = typeof intent.currency === 'string' && /^[A-Za-z]{3}$/.test(intent.currency) ? intent.currency.toLowerCase() : noCurrency;
  return {
    message: {
      event_id: eventId,
      type,
      created: Number.isSafeInteger(event.created) ? (event.created as number) : 0,
      order_id: orderId,
      payment_intent_id: intent.id,
      // A missing or odd amount is sent as -1: it matches no order, so the order is flagged for review.
      amount: Number.isSafeInteger(reported) ? (reported as number) : -1,
      currency,
    },
  };
};
