import * as v from 'valibot';

/**
 * The Stripe webhook's 200 answer as a valibot schema: the source of the WebhookAnswer type
 * (./webhook.ts imports it as a type only) and of its JSON Schema in docs/openapi.json.
 */
export const webhookAnswerSchema = v.pipe(
  v.strictObject({ received: v.literal(true) }),
  v.description('The event was verified and acknowledged (queued for fulfilment when it is a payment event with an order).'),
);

/** The Stripe webhook's 200 answer. */
export type WebhookAnswer = v.InferOutput<typeof webhookAnswerSchema>;

/**
 * A Stripe event as the webhook reads it (documentation: ./stripe-event.ts reads these fields
 * and acknowledges anything else it cannot act on). Other fields of Stripe's event are allowed.
 */
export const stripeEventSchema = v.pipe(
  v.objectWithRest({
    id: v.pipe(v.string(), v.description('The event id (evt_...).')),
    type: v.pipe(v.string(), v.description('payment_intent.succeeded, payment_intent.payment_failed and payment_intent.canceled are acted on; other types are acknowledged.')),
    data: v.objectWithRest(
      { object: v.pipe(v.objectWithRest({}, v.unknown()), v.description('The payment intent, whose metadata.order_id names the order.')) },
      v.unknown(),
    ),
  }, v.unknown()),
  v.description("A Stripe event object, as Stripe sends it."),
);
