import { checkoutDeps } from '../shared/checkout/deps';
import { checkoutHandler } from '../shared/routes/checkout';
import { defineFunction } from '../shared/config/define-function';

/** POST /api/v1/physical-checkout — B2 physical SIM checkout: price, VAT, SIM holds, payment intent (shared/checkout/). */
export const handler = defineFunction('checkout-physical', { deps: checkoutDeps, handler: (deps) => checkoutHandler('physical', deps) });
