/**
 * The Stripe API version every request pins (`Stripe-Version`): the one stripe-node 23.1.0
 * sent by default when the service still used the SDK, so objects and errors keep the shape
 * the service was built against. The local Stripe emulator speaks it and the test events carry
 * it. Change it only together with a read of Stripe's changelog.
 */
export const stripeApiVersion = '2026-10-28.endive';
