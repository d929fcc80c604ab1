import { checkoutHandler } from '../shared/checkout/handler';
import { containerCheckoutDeps } from '../shared/checkout/deps';

/** POST /api/v1/checkout — B1 eSIM checkout: price, VAT, eSIM holds, payment intent. */
export const handler = checkoutHandler('esim', containerCheckoutDeps);
