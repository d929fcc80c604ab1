/**
 * The route table: every HTTP route of the service as plain data. The CDK stack, the local
 * gateway and the tests all read it, so a route is declared here and nowhere else.
 *
 * Paths follow API Gateway REST API syntax. `{name}` is one path segment, `{proxy+}` the
 * rest of the path. A trailing slash is part of the documented path but optional for
 * callers (API Gateway REST API treats `/x/` and `/x` alike; so does the local gateway).
 * REST API allows one variable name per path level, so the SIM segment under
 * `/developer/api/sims/` is `{sim}` for every route: an internal SIM id for A2, an ICCID for
 * the SMS routes (the handler says which).
 *
 * Why here, in shared/topology/ beside the queue table (./queues.ts), and not under infra/:
 * the table is plain data read by three layers (the CDK stack, the runtime's fallbacks and
 * secret names, and the local gateway and tests), and the runtime must not import infra/
 * (test/platform/layers.test.ts). infra/ already reads shared/ (the table definition in
 * shared/db/table.ts), so shared/ is the one place all of them can import without a cycle.
 * This module imports nothing at all: no aws-cdk-lib, no runtime code.
 */

/** HTTP methods a route can answer; ANY is a catch-all (used by the fallbacks). */
export type RouteMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'ANY';

/** Which interface a route belongs to. */
export type RouteArea = 'developer' | 'storefront' | 'provider';

/** Names of the queues a function may send to (see ./queues.ts). */
export type QueueName = 'callbacks' | 'fulfilment' | 'webhook-deliveries' | 'operator-feed' | 'operator-actions';

/** Names of the secrets a function may read (see shared/config/secrets.ts). */
export type SecretName =
  | 'STOREFRONT_SERVICE_TOKEN'
  | 'STRIPE_SECRET_KEY'
  | 'STRIPE_WEBHOOK_SECRET'
  | 'SMS_PROVIDER_TOKEN'
  | 'SMS_RECEIPT_SECRET'
  | 'CALLBACK_SIGNING_SECRET'
  | 'WEBHOOK_SECRETS_KEY'
  | 'OPERATOR_PROVISIONING_SECRET';

/** What a function may touch: the stack grants exactly this and nothing more. */
export interface RouteAccess {
  /** DynamoDB access to the service table. */
  table: 'none' | 'read' | 'readWrite';
  /** Queues the function sends messages to. */
  sendsTo?: QueueName[];
  /** Secrets the function reads at run time. */
  secrets?: SecretName[];
  /**
   * Sends e-mail through Amazon SES v2 (SendEmail, raw MIME): the stack grants ses:SendEmail
   * and ses:SendRawEmail on the sender identity and sets EMAIL_FROM (docs/fulfilment.md).
   */
  sendsEmail?: boolean;
  /**
   * Publishes to the operations SNS topic: the stack grants sns:Publish on it and sets
   * OPERATIONS_TOPIC_ARN (docs/fulfilment.md).
   */
  notifiesOperations?: boolean;
  /**
   * Hands work to the operator's provisioning API (issue #33; docs/operator-provisioning-api.md):
   * the stack sets OPERATOR_PROVISIONING_URL when the deploy names one (`-c operatorProvisioningUrl`).
   */
  operatorProvisioning?: boolean;
}

/** One HTTP route. */
export interface RouteDefinition {
  /** Function name, kebab-case; also the handler file's base name. */
  name: string;
  method: RouteMethod;
  path: string;
  /** Handler module relative to the repository root; it exports `handler`. */
  handler: string;
  area: RouteArea;
  /** Whether the route takes a JSON body (parsed by the shared middleware). */
  json: boolean;
  access: RouteAccess;
  /** Lambda timeout in seconds (default 10). */
  timeoutSeconds?: number;
  /** Lambda memory in MB (default 1024). */
  memoryMb?: number;
}

/** The fallback of Area A: every request under /developer/api/ that no route serves. */
export const developerFallbackRoute: RouteDefinition = {
  name: 'developer-fallback',
  method: 'ANY',
  path: '/developer/api/{proxy+}',
  handler: 'functions/developer-fallback.ts',
  area: 'developer',
  json: false,
  access: { table: 'readWrite' },
};

/** The fallback of every other path: a JSON 404 (405 for a known path with another method). */
export const defaultFallbackRoute: RouteDefinition = {
  name: 'default-fallback',
  method: 'ANY',
  path: '/{proxy+}',
  handler: 'functions/default-fallback.ts',
  area: 'storefront',
  json: false,
  access: { table: 'none' },
};

/** The routes of the service, fallbacks excluded. */
export const routes: RouteDefinition[] = [
  // Area A reads (issue #3). readWrite: every Area A request writes its rate-limit counters.
  {
    name: 'list-sims',
    method: 'GET',
    path: '/developer/api/sims/',
    handler: 'functions/list-sims.ts',
    area: 'developer',
    json: false,
    access: { table: 'readWrite' },
  },
  {
    name: 'get-sim',
    method: 'GET',
    path: '/developer/api/sims/{sim}/',
    handler: 'functions/get-sim.ts',
    area: 'developer',
    json: false,
    access: { table: 'readWrite' },
  },
  // Area A SMS (issue #4). `{sim}` carries the ICCID here.
  {
    name: 'send-sms',
    method: 'POST',
    path: '/developer/api/sims/{sim}/sms/',
    handler: 'functions/send-sms.ts',
    area: 'developer',
    json: true,
    access: { table: 'readWrite', secrets: ['SMS_PROVIDER_TOKEN'] },
    // Up to 3 s resolving callback_url's host plus the provider's 8 s total timeout.
    timeoutSeconds: 15,
  },
  {
    // Reconciliation: a message's current state (beyond the spec; docs/sms.md).
    name: 'get-sms',
    method: 'GET',
    path: '/developer/api/sims/{sim}/sms/{message_id}/',
    handler: 'functions/get-sms.ts',
    area: 'developer',
    json: false,
    access: { table: 'readWrite' },
  },
  {
    // Delivery receipts from the SMS provider (docs/sms-provider-api.md); the body is left raw
    // because its HMAC signature is checked before it is parsed.
    name: 'receive-sms-receipt',
    method: 'POST',
    path: '/sms-provider/receipts',
    handler: 'functions/receive-sms-receipt.ts',
    area: 'provider',
    json: false,
    access: { table: 'readWrite', sendsTo: ['callbacks'], secrets: ['SMS_RECEIPT_SECRET'] },
  },
  // Area B checkouts (issue #5); docs/area-b.md. 15 s: reads and holds take well under a
  // second, Stripe at most 2 × 5 s (one SDK retry).
  {
    name: 'checkout-esim',
    method: 'POST',
    path: '/api/v1/checkout',
    handler: 'functions/checkout-esim.ts',
    area: 'storefront',
    json: true,
    access: { table: 'readWrite', secrets: ['STOREFRONT_SERVICE_TOKEN', 'STRIPE_SECRET_KEY'] },
    timeoutSeconds: 15,
  },
  {
    name: 'checkout-physical',
    method: 'POST',
    path: '/api/v1/physical-checkout',
    handler: 'functions/checkout-physical.ts',
    area: 'storefront',
    json: true,
    access: { table: 'readWrite', secrets: ['STOREFRONT_SERVICE_TOKEN', 'STRIPE_SECRET_KEY'] },
    timeoutSeconds: 15,
  },
  {
    name: 'checkout-iot',
    method: 'POST',
    path: '/api/v1/iot-physical-checkout',
    handler: 'functions/checkout-iot.ts',
    area: 'storefront',
    json: true,
    access: { table: 'readWrite', secrets: ['STOREFRONT_SERVICE_TOKEN', 'STRIPE_SECRET_KEY'] },
    timeoutSeconds: 15,
  },
  // Payment events from Stripe (issue #6); docs/fulfilment.md. No service token: Stripe signs
  // the raw body (Stripe-Signature), so the body is left unparsed. The route only verifies
  // and enqueues; the fulfilment consumer does the rest.
  {
    name: 'stripe-webhook',
    method: 'POST',
    path: '/api/v1/webhooks/stripe',
    handler: 'functions/stripe-webhook.ts',
    area: 'storefront',
    json: false,
    // No table: the queue is the only place a payment event is kept (docs/fulfilment.md).
    access: { table: 'none', sendsTo: ['fulfilment'], secrets: ['STRIPE_WEBHOOK_SECRET'] },
  },
  // SIM actions through the operator (issue #33); docs/sim-actions.md. `{sim}` is the SIM id or
  // its ICCID; each needs the API key scope sims:manage.
  {
    name: 'request-sim-action',
    method: 'POST',
    path: '/developer/api/sims/{sim}/actions/',
    handler: 'functions/request-sim-action.ts',
    area: 'developer',
    json: true,
    access: { table: 'readWrite', sendsTo: ['operator-actions'], operatorProvisioning: true },
  },
  {
    name: 'list-sim-actions',
    method: 'GET',
    path: '/developer/api/sims/{sim}/actions/',
    handler: 'functions/list-sim-actions.ts',
    area: 'developer',
    json: false,
    access: { table: 'readWrite' },
  },
  {
    name: 'get-sim-action',
    method: 'GET',
    path: '/developer/api/sims/{sim}/actions/{action_id}/',
    handler: 'functions/get-sim-action.ts',
    area: 'developer',
    json: false,
    access: { table: 'readWrite' },
  },
  // Webhook subscriptions for lifecycle events (issue #15); docs/webhooks.md. `{webhook}` is a
  // subscription id (wh_...). WEBHOOK_SECRETS_KEY seals the signing secrets in the table.
  ...webhookRoutes(),
];

/**
 * The six webhook subscription routes (Area A). Only the two that make a signing secret (create
 * and rotate) read WEBHOOK_SECRETS_KEY, which seals it for the table.
 */
function webhookRoutes(): RouteDefinition[] {
  const route = (name: string, method: RouteMethod, path: string, seals = false): RouteDefinition => ({
    name,
    method,
    path,
    handler: `functions/${name}.ts`,
    area: 'developer',
    json: name === 'create-webhook',
    access: { table: 'readWrite', ...(seals ? { secrets: ['WEBHOOK_SECRETS_KEY' as const] } : {}) },
  });
  return [
    // Up to 3 s resolving the URL's host, as send-sms.
    { ...route('create-webhook', 'POST', '/developer/api/webhooks/', true), timeoutSeconds: 15 },
    route('list-webhooks', 'GET', '/developer/api/webhooks/'),
    route('get-webhook', 'GET', '/developer/api/webhooks/{webhook}/'),
    route('rotate-webhook-secret', 'POST', '/developer/api/webhooks/{webhook}/rotate-secret/', true),
    route('list-webhook-deliveries', 'GET', '/developer/api/webhooks/{webhook}/deliveries/'),
    // Last: whatever walks the table in order (the benchmark) has used the subscription before.
    route('delete-webhook', 'DELETE', '/developer/api/webhooks/{webhook}/'),
  ];
}

/** Every route including the fallbacks, most specific first. */
export const allRoutes = (): RouteDefinition[] => [...routes, developerFallbackRoute, defaultFallbackRoute];
