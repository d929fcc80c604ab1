/** The payment events the service acts on; every other Stripe event is acknowledged and ignored. */
export const paymentEventTypes = ['payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled'] as const;

/** One of paymentEventTypes. */
export type PaymentEventType = (typeof paymentEventTypes)[number];

/**
 * One message of the fulfilment queue: a verified Stripe payment event, reduced to what
 * fulfilment needs. `amount` is what the event reports (amount_received for a success, the
 * intent's amount otherwise), in the currency's minor unit; it is checked against the order,
 * never trusted.
 */
export interface FulfilmentMessage {
  event_id: string;
  type: PaymentEventType;
  /** The event's creation time (epoch seconds). */
  created: number;
  order_id: string;
  payment_intent_id: string;
  amount: number;
  /** Lower-case ISO code as Stripe writes it (`gbp`). */
  currency: string;
}

const isPaymentEventType = (value: unknown): value is PaymentEventType =>
  typeof value === 'string' && (paymentEventTypes as readonly string[]).includes(value);

/**
 * A Stripe object id as the fulfilment message carries it (event `evt_...`, payment intent
 * `pi_...`): 1 to 255 visible ASCII characters. Bounded and plain, so it fits any key,
 * any log line and any SQS message.
 */
export const isStripeId = (value: unknown): value is string => typeof value === 'string' && /^[\x21-\x7e]{1,255}$/.test(value);

/** An order id as checkout makes them (crypto.randomUUID): a lower-case UUID. */
export const isOrderId = (value: unknown): value is string =>
  typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);

/**
 * Parses a fulfilment queue message body; throws when it is not a FulfilmentMessage: an
 * object with event_id and payment_intent_id (isStripeId), order_id (isOrderId), a payment
 * event type, currency of three lower-case letters, amount and created safe integers. The
 * webhook builds its messages with ./stripe-event.ts and passes each through this parser
 * before it is queued, so a message that fails here never comes from the webhook.
 */
export const parseFulfilmentMessage = (body: string): FulfilmentMessage => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw new Error('malformed fulfilment message: not JSON');
  }
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Partial<Record<keyof FulfilmentMessage, unknown>>;
  const { event_id: eventId, type, created, order_id: orderId, payment_intent_id: paymentIntentId, amount, currency } = fields;
  if (
    !isStripeId(eventId) ||
    !isPaymentEventType(type) ||
    !Number.isSafeInteger(created) ||
    !isOrderId(orderId) ||
    !isStripeId(paymentIntentId) ||
    !Number.isSafeInteger(amount) ||
    typeof currency !== 'string' ||
    !/^[a-z]{3}$/.test(currency)
  ) {
    throw new Error('malformed fulfilment message');
  }
  return {
    event_id: eventId,
    type,
    created: created as number,
    order_id: orderId,
    payment_intent_id: paymentIntentId,
    amount: amount as number,
    currency,
  };
};

/** The order id of a queue message body, if one can be read (for logging a message that fails). */
export const orderIdOfBody = (body: string): string | undefined => {
  try {
    const orderId = (JSON.parse(body) as { order_id?: unknown })?.order_id;
    return typeof orderId === 'string' ? orderId : undefined;
  } catch {
    return undefined;
  }
};
