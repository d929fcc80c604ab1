import { checkoutHandler } from '../shared/checkout/handler';
import { containerCheckoutDeps } from '../shared/checkout/deps';

/** POST /api/v1/physical-checkout — B2 physical SIM checkout: price, VAT, SIM holds, payment intent. */
export const handler = checkoutHandler('physical', containerCheckoutDeps);
