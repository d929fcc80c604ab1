import type { CheckoutEndpoint } from '../db/items';
import { isApiError } from '../errors/api-error';
import { jsonHeaders } from '../http/responses';
import { recordMetric } from '../observability/metrics';
import { storefrontRoute } from '../http/storefront-route';
import { checkout } from '../checkout/checkout';
import type { CheckoutDeps } from '../checkout/deps';

/**
 * The Lambda handler of one checkout endpoint: the storefront middleware chain around
 * `checkout`. The deployed function passes the container's deps (functions/checkout-*.ts);
 * tests pass their own (a failing tax calculator, a controllable clock). A replayed
 * idempotent response carries `Idempotent-Replayed: true`. Each answer is counted in the
 * Checkouts metric by endpoint and outcome (`created`, `replayed` or the error code).
 */
export const checkoutHandler = (endpoint: CheckoutEndpoint, deps: CheckoutDeps) =>
  storefrontRoute({}, async ({ body, idempotencyKey }) => {
    let outcome;
    try {
      outcome = await checkout(deps, { endpoint, body, idempotencyKey });
    } catch (error) {
      recordMetric('Checkouts', { endpoint, outcome: isApiError(error) ? error.code : 'internal_error' });
      throw error;
    }
    recordMetric('Checkouts', { endpoint, outcome: outcome.replayed ? 'replayed' : outcome.status === 201 ? 'created' : `status_${outcome.status}` });
    return {
      statusCode: outcome.status,
      headers: { ...jsonHeaders, ...(outcome.replayed ? { 'Idempotent-Replayed': 'true' } : {}) },
      body: outcome.body,
    };
  });
