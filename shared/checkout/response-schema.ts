import * as v from 'valibot';

/**
 * The 201 body of the three checkouts (SPEC.md, "Checkout response") as a valibot schema: the
 * one source of the CheckoutResponseBody type that ./checkout.ts returns (imported as a type
 * only, so the bundles do not carry this module) and of its JSON Schema in docs/openapi.json,
 * which the HTTP tests check every answer against.
 */
const decimal = (description: string) => v.pipe(v.string(), v.regex(/^\d+\.\d{2}$/), v.description(`${description} Decimal string, two decimal places.`));

/** The checkout response. */
export const checkoutResponseSchema = v.pipe(
  v.strictObject({
    order_id: v.pipe(v.string(), v.uuid(), v.description('The order, a UUID.')),
    client_secret: v.pipe(
      v.string(),
      v.regex(/^pi_[A-Za-z0-9]+_secret_[A-Za-z0-9]+$/),
      v.description("The payment intent's client secret for Stripe.js; the intent id is the part before _secret_."),
    ),
    currency: v.pipe(v.literal('GBP'), v.description('Always GBP.')),
    subtotal: decimal('Sum of the lines, net of VAT.'),
    tax_amount: decimal('VAT for the buyer country.'),
    amount_total: decimal('subtotal plus tax_amount.'),
  }),
  v.description('The order is pending payment: confirm the payment intent with client_secret.'),
);

/** The checkout response. */
export type CheckoutResponseBody = v.InferOutput<typeof checkoutResponseSchema>;
