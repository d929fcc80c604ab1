/**
 * One working request per checkout for the start banner (issue #12): the demo seed's published,
 * priced plans (TRAVEL-EU-5GB with eSIM stock, PHYSICAL-SIM-UK with physical stock,
 * IOT-CONTRACT-1GB) and the fields each endpoint requires (docs/area-b.md). With another seed
 * the SKUs may not exist, so the banner prints these for the demo seed only.
 */
import type { CheckoutEndpoint } from '../shared/db/items';

/** The path of each checkout endpoint. */
export const checkoutPaths: Readonly<Record<CheckoutEndpoint, string>> = {
  esim: '/api/v1/checkout',
  physical: '/api/v1/physical-checkout',
  iot: '/api/v1/iot-physical-checkout',
};

/** A working request body of each checkout endpoint: every field it requires, for the demo seed's plans. */
export const checkoutExampleBodies: Readonly<Record<CheckoutEndpoint, Record<string, unknown>>> = {
  esim: { cart: [{ catalog_sku: 'TRAVEL-EU-5GB', quantity: 1 }], customer_email: 'traveller@example.com', customer_country: 'GB' },
  physical: {
    cart: [{ catalog_sku: 'PHYSICAL-SIM-UK', quantity: 1 }],
    customer_email: 'buyer@example.com',
    customer_country: 'GB',
    customer_name: 'Sam Buyer',
    shipping_address: { line1: '1 High Street', city: 'London', postal_code: 'SW1A 1AA', country: 'GB' },
  },
  iot: {
    cart: [{ sku: 'IOT-CONTRACT-1GB', quantity: 1 }],
    customer_email: 'ops@fleet.example.com',
    customer_country: 'GB',
    customer_first_name: 'Ada',
    customer_last_name: 'Fleet',
    data_processing_consent: { agreed: true, wording: 'I agree to the processing of my data.', given_at: '2026-11-23T10:00:00Z' },
    billing_address: { line1: '2 Quay Road', city: 'Bristol', postal_code: 'BS1 4DJ', country: 'GB' },
    shipping_address: { line1: '2 Quay Road', city: 'Bristol', postal_code: 'BS1 4DJ', country: 'GB' },
  },
};

/** The banner's examples, in the order eSIM, physical, IoT: each endpoint's path and working body. */
export const checkoutExamples: ReadonlyArray<{ path: string; body: Record<string, unknown> }> = (['esim', 'physical', 'iot'] as const).map(
  (endpoint) => ({ path: checkoutPaths[endpoint], body: checkoutExampleBodies[endpoint] }),
);
