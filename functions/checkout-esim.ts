import { checkoutDeps } from '../shared/checkout/deps';
import { checkoutHandler } from '../shared/routes/checkout';
import { defineFunction } from '../shared/config/define-function';

/** POST /api/v1/checkout — B1 eSIM checkout: price, VAT, eSIM holds, payment intent (shared/checkout/). */
export const handler = defineFunction('checkout-esim', { deps: checkoutDeps, handler: (deps) => checkoutHandler('esim', deps) });
