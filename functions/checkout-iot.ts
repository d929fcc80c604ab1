import { checkoutDeps } from '../shared/checkout/deps';
import { checkoutHandler } from '../shared/routes/checkout';
import { defineFunction } from '../shared/config/define-function';

/** POST /api/v1/iot-physical-checkout — B3 IoT contract checkout: price, VAT, payment intent (shared/checkout/). */
export const handler = defineFunction('checkout-iot', { deps: checkoutDeps, handler: (deps) => checkoutHandler('iot', deps) });
