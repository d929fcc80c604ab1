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

/** Parses a fulfilment queue message body; throws when it is not a FulfilmentMessage. */
export const parseFulfilmentMessage = (body: string): FulfilmentMessage => {
  let parsed: Partial<FulfilmentMessage>;
  try {
    parsed = JSON.parse(body) as Partial<FulfilmentMessage>;
  } catch {
    throw new Error('malformed fulfilment message: not JSON');
  }
  const strings = [parsed?.event_id, parsed?.order_id, parsed?.payment_intent_id, parsed?.currency];
  if (
    strings.some((value) => typeof value !== 'string' || value === '') ||
    !isPaymentEventType(parsed.type) ||
    !Number.isSafeInteger(parsed.amount) ||
    !Number.isSafeInteger(parsed.created)
  ) {
    throw new Error('malformed fulfilment message');
  }
  return {
    event_id: parsed.event_id!,
    type: parsed.type,
    created: parsed.created!,
    order_id: parsed.order_id!,
    payment_intent_id: parsed.payment_intent_id!,
    amount: parsed.amount!,
    currency: parsed.currency!,
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
