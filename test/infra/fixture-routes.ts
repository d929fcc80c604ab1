/**
 * A route table with every kind of row the real one will have (shared paths with two
 * methods, path variables, trailing slashes, each table access level, queues, secrets,
 * custom timeout and memory), so the stack tests do not depend on the rows other issues
 * add. Handler files must exist for NodejsFunction, so all rows point at existing modules.
 */
import { defaultFallbackRoute, developerFallbackRoute, type RouteDefinition } from '../../shared/topology/routes';

const handler = 'functions/default-fallback.ts';

/** The fixture routes, fallbacks last as in allRoutes(). */
export const fixtureRoutes: RouteDefinition[] = [
  { name: 'list-sims', method: 'GET', path: '/developer/api/sims/', handler, area: 'developer', json: false, access: { table: 'read' } },
  { name: 'get-sim', method: 'GET', path: '/developer/api/sims/{sim}/', handler, area: 'developer', json: false, access: { table: 'readWrite' } },
  {
    name: 'send-sms',
    method: 'POST',
    path: '/developer/api/sims/{sim}/sms/',
    handler,
    area: 'developer',
    json: true,
    access: { table: 'readWrite', secrets: ['SMS_PROVIDER_TOKEN'] },
  },
  { name: 'list-sms', method: 'GET', path: '/developer/api/sims/{sim}/sms/', handler, area: 'developer', json: false, access: { table: 'read' } },
  {
    name: 'sms-receipt',
    method: 'POST',
    path: '/sms-provider/receipts',
    handler,
    area: 'provider',
    json: true,
    access: { table: 'readWrite', sendsTo: ['callbacks'], secrets: ['SMS_RECEIPT_SECRET'] },
  },
  {
    name: 'checkout-esim',
    method: 'POST',
    path: '/api/v1/checkout',
    handler,
    area: 'storefront',
    json: true,
    access: { table: 'readWrite', secrets: ['STOREFRONT_SERVICE_TOKEN', 'STRIPE_SECRET_KEY'] },
    timeoutSeconds: 20,
    memoryMb: 512,
  },
  {
    name: 'stripe-webhook',
    method: 'POST',
    path: '/api/v1/webhooks/stripe',
    handler,
    area: 'storefront',
    json: false,
    access: { table: 'none', sendsTo: ['fulfilment'], secrets: ['STRIPE_WEBHOOK_SECRET'] },
  },
  { name: 'list-plans', method: 'GET', path: '/api/v1/plans/', handler, area: 'storefront', json: false, access: { table: 'none' } },
  developerFallbackRoute,
  defaultFallbackRoute,
];

/**
 * Every method the API must have for the fixture: the routes' own methods, and an ANY on
 * every resource to the fallback the local gateway would pick for that path.
 */
export const fixtureMethods: { httpMethod: string; path: string; route: string }[] = [
  { httpMethod: 'GET', path: '/developer/api/sims', route: 'list-sims' },
  { httpMethod: 'GET', path: '/developer/api/sims/{sim}', route: 'get-sim' },
  { httpMethod: 'POST', path: '/developer/api/sims/{sim}/sms', route: 'send-sms' },
  { httpMethod: 'GET', path: '/developer/api/sims/{sim}/sms', route: 'list-sms' },
  { httpMethod: 'POST', path: '/sms-provider/receipts', route: 'sms-receipt' },
  { httpMethod: 'POST', path: '/api/v1/checkout', route: 'checkout-esim' },
  { httpMethod: 'POST', path: '/api/v1/webhooks/stripe', route: 'stripe-webhook' },
  { httpMethod: 'GET', path: '/api/v1/plans', route: 'list-plans' },
  { httpMethod: 'ANY', path: '/developer/api/{proxy+}', route: 'developer-fallback' },
  { httpMethod: 'ANY', path: '/{proxy+}', route: 'default-fallback' },
  // Unknown methods on known resources under /developer/api/, and /developer/api itself: the developer fallback (401 first, then 404/405).
  { httpMethod: 'ANY', path: '/developer/api', route: 'developer-fallback' },
  { httpMethod: 'ANY', path: '/developer/api/sims', route: 'developer-fallback' },
  { httpMethod: 'ANY', path: '/developer/api/sims/{sim}', route: 'developer-fallback' },
  { httpMethod: 'ANY', path: '/developer/api/sims/{sim}/sms', route: 'developer-fallback' },
  // Everything else, the root included: the default fallback.
  { httpMethod: 'ANY', path: '/', route: 'default-fallback' },
  { httpMethod: 'ANY', path: '/developer', route: 'default-fallback' },
  { httpMethod: 'ANY', path: '/sms-provider', route: 'default-fallback' },
  { httpMethod: 'ANY', path: '/sms-provider/receipts', route: 'default-fallback' },
  { httpMethod: 'ANY', path: '/api', route: 'default-fallback' },
  { httpMethod: 'ANY', path: '/api/v1', route: 'default-fallback' },
  { httpMethod: 'ANY', path: '/api/v1/checkout', route: 'default-fallback' },
  { httpMethod: 'ANY', path: '/api/v1/webhooks', route: 'default-fallback' },
  { httpMethod: 'ANY', path: '/api/v1/webhooks/stripe', route: 'default-fallback' },
  { httpMethod: 'ANY', path: '/api/v1/plans', route: 'default-fallback' },
];
