import type { CheckoutEndpoint } from '../db/items';
import { jsonHeaders } from '../http/responses';
import { storefrontRoute } from '../http/storefront-route';
import { checkout } from './checkout';
import type { CheckoutDeps } from './deps';

/**
 * The Lambda handler of one checkout endpoint: the storefront middleware chain around
 * `checkout`. The deployed function passes the container's deps (functions/checkout-*.ts);
 * tests pass their own (a failing tax calculator, a controllable clock). A replayed
 * idempotent response carries `Idempotent-Replayed: true`.
 */
export const checkoutHandler = (endpoint: CheckoutEndpoint, deps: CheckoutDeps) =>
  storefrontRoute({}, async ({ body, idempotencyKey }) => {
    const outcome = await checkout(deps, { endpoint, body, idempotencyKey });
    return {
      statusCode: outcome.status,
      headers: { ...jsonHeaders, ...(outcome.replayed ? { 'Idempotent-Replayed': 'true' } : {}) },
      body: outcome.body,
    };
  });
