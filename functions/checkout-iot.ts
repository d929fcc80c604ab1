import { checkoutHandler } from '../shared/checkout/handler';
import { containerCheckoutDeps } from '../shared/checkout/deps';

/** POST /api/v1/iot-physical-checkout — B3 IoT contract checkout: price, VAT, payment intent. */
export const handler = checkoutHandler('iot', containerCheckoutDeps);
