import type * as v from 'valibot';
import { idempotencyKeyPattern } from '../../shared/idempotency/idempotency';
import { listSimsQuerySchema } from '../../shared/sims/list-query';
import { iccidParameterSchema, simIdParameterSchema } from '../../shared/sims/sim-schema';
import { checkoutExamples } from '../../local/checkout-examples';
import { messageIdParameterSchema } from '../../shared/sms/sms-schema';
import { WebhookIdParameter } from '../../shared/webhooks/schemas';
import { actionIdParameterSchema, simParameterSchema, simActionsQuerySchema } from '../../shared/sim-actions/schemas';
import type { ErrorCodeName } from './error-codes';
import { idempotentReplayedHeader, type HeaderObject } from './headers';

/**
 * What docs/openapi.json says about each route of the route table (shared/topology/routes.ts),
 * by route name. The route gives method, path and area; this gives the words, the parameters,
 * the bodies and the error codes. A route without an entry here fails `npm run docs` and
 * test/docs/openapi.test.ts, so adding a route means adding one entry (copy the nearest one).
 * Every operation of an area also gets that area's own answers (./document.ts: authentication,
 * rate limits and their headers, 405, 500).
 */

/** The tags of the document, in order, with their descriptions. */
export const tags = [
  { name: 'SIMs', description: 'Area A: list and read the SIMs of the API key\'s customer group (SPEC.md A1, A2).' },
  { name: 'SMS', description: 'Area A: send an SMS to a SIM and read a message\'s state back (SPEC.md A3; the delivery receipt is the webhook deliveryReceipt).' },
  {
    name: 'Webhooks',
    description:
      "Area A: subscribe an HTTPS URL of the key's customer to lifecycle events (line.activated, line.suspended, line.resumed, line.cancelled, usage.updated, identity.rotated, identity.verified, action.completed, action.failed, the default set, and sms.received: the webhooks of the same names), read the subscriptions and their recent delivery attempts, rotate the signing secret, delete (docs/webhooks.md). The signing secret is shown only in the answers of create and rotate-secret.",
  },
  {
    name: 'SIM actions',
    description:
      "Area A: ask the operator to activate, suspend, resume or terminate a SIM, and follow the action until the operator confirms it (docs/sim-actions.md). Needs the API key scope sims:manage; terminate also a user with the admin role. The outcome also comes as the webhooks action.completed and action.failed.",
  },
  { name: 'Checkout', description: 'Area B: price a cart, hold stock and create a payment intent (SPEC.md B1, B2, B3).' },
  {
    name: 'Internal',
    description:
      'Routes for the service\'s own providers, not for API consumers: the SMS provider\'s delivery reports and Stripe\'s payment events. Each is authenticated by a signature over the raw body.',
  },
] as const;

/** A tag name. */
export type TagName = (typeof tags)[number]['name'];

/** A parameter whose schema is a valibot schema. */
export interface ParameterSpec {
  name: string;
  in: 'path' | 'query' | 'header';
  description?: string;
  required?: boolean;
  schema: v.GenericSchema | Record<string, unknown>;
  example?: unknown;
}

/** One operation's description. */
export interface OperationSpec {
  tag: TagName;
  summary: string;
  description: string;
  /** The route table's path variables renamed as the spec names them (`sim` → `sim_id`), with their schemas. */
  pathParameters?: Record<string, { name: string; schema: v.GenericSchema; example: unknown }>;
  /** The query parameters, one per entry of a valibot object schema. */
  query?: v.ObjectSchema<v.ObjectEntries, undefined>;
  /** Request header parameters beyond authentication. */
  headers?: ParameterSpec[];
  /** The JSON request body: a named component schema and an example. */
  requestBody?: { schema: string; example: unknown; description?: string };
  /** The success answer: status, named component schema, an example, extra headers. */
  success: { status: number; description: string; schema: string; example: unknown; headers?: Record<string, HeaderObject> };
  /** Error codes this operation answers, beyond the ones its area adds. */
  errors: ErrorCodeName[];
  /** The body is JSON that the gateway may refuse as too large (POST). */
  takesBody: boolean;
}

const exampleSim = {
  id: 1001,
  iccid: '8944500000000001001',
  msisdn: '447700900001',
  status: 'active',
  connection_status: 'active',
  customer_name: 'Acme North',
  group: 'Acme North',
  tariff_name: 'IoT 1GB',
  usage: { data_used_mb: '12.50', data_overage_mb: '0.00' },
  cost: { currency: 'GBP', base_cost: '£5.00', overage_cost: '£1.25', total_cost: '£6.25' },
  data_bundle: {
    is_data_bundle: true,
    bundle_data_allowance_mb: '10240.00',
    bundle_monthly_cost: '£50.00',
    per_sim_access_fee: '£1.00',
    pool_used_mb: '41.20',
    pool_total_mb: '10240.00',
  },
  updated_at: '2026-11-20T10:00:00+00:00',
};

const simIdParameter = { sim: { name: 'sim_id', schema: simIdParameterSchema, example: 1001 } };
const iccidParameter = { sim: { name: 'iccid', schema: iccidParameterSchema, example: '8944500000000001001' } };

const exampleCheckoutResponse = {
  order_id: '6f1c2b1e-8d4a-4c3e-9b7a-2f0e5d6c7b8a',
  client_secret: 'pi_3QAbCdEfGhIjKlMn_secret_XyZ123',
  currency: 'GBP',
  subtotal: '12.00',
  tax_amount: '2.40',
  amount_total: '14.40',
};

const checkoutBody = (path: string): unknown => checkoutExamples.find((example) => example.path === path)?.body;

const idempotencyKey: ParameterSpec = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes the checkout safe to retry for 24 hours: the same key and body get the first 201 again (with Idempotent-Replayed: true); the same key with another body is 409 idempotency_key_reused. 1 to 255 visible ASCII characters (else 400 invalid_request).',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: idempotencyKeyPattern.source },
  example: 'order-attempt-7f3a',
};

const checkoutErrors: ErrorCodeName[] = [
  'invalid_json',
  'invalid_request',
  'idempotency_key_reused',
  'idempotency_request_in_progress',
  'unknown_sku',
  'no_price',
  'tax_fail',
  'stripe_error',
  'stripe_not_configured',
];

const checkoutSuccess = {
  status: 201,
  description: 'The order was created, pending payment.',
  schema: 'CheckoutResponse',
  example: exampleCheckoutResponse,
  headers: idempotentReplayedHeader,
};

const exampleSubscription = {
  id: 'wh_5d1c0a8e9b7f6a4c3e2d1b0a',
  url: 'https://hooks.example.com/sim-events',
  events: ['line.activated', 'line.suspended'],
  description: 'fleet dashboard',
  status: 'active',
  created_at: '2026-11-25T12:00:00.123+00:00',
};

const simActionParameter = { sim: { name: 'sim', schema: simParameterSchema, example: '1001' } };

const exampleAction = {
  action_id: 'act_019a7f3c2b1d8e4f6a0b2c9d7e5f',
  sim: 1001,
  iccid: '8944500000000001001',
  action: 'suspend',
  status: 'pending',
  reason: 'reported stolen',
  requested_at: '2026-11-25T11:59:58.120+00:00',
  completed_at: null,
  failure: null,
};

const actionIdempotencyKey: ParameterSpec = {
  name: 'Idempotency-Key',
  in: 'header',
  description:
    'Makes the request safe to retry for 24 hours, as on the checkouts: the same key and body for the same SIM (within the key\'s customer group) get the first 202 again (with Idempotent-Replayed: true); the same key with another body is 409 idempotency_key_reused. 1 to 255 visible ASCII characters (else 400 invalid_request).',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: idempotencyKeyPattern.source },
  example: 'suspend-1001-7f3a',
};

const webhookIdParameter = { webhook: { name: 'webhook_id', schema: WebhookIdParameter, example: exampleSubscription.id } };

/** The operations, by route name. */
export const operations: Record<string, OperationSpec> = {
  'request-sim-action': {
    tag: 'SIM actions',
    summary: 'Ask for a SIM action',
    description:
      "Asks the operator's provisioning system to activate (from stock, dispatched, trial or inactive), suspend (from active or trial), resume (from suspended) or terminate (from any status but cancelled; with \"confirm\": the SIM's ICCID, by a user with the admin role) the SIM. 202 with the action pending: it completes when the operator's feed brings the SIM to the status asked for, or fails (rejected_by_operator, operator_timeout after 24 hours, superseded by another status); follow it with GET .../actions/{action_id}/ or the webhooks action.completed and action.failed. At most one pending action per SIM (409 action_pending). Checked in this order: the body (invalid_json, invalid_action), the Idempotency-Key header (invalid_request), the SIM (404), operator_not_configured, then admin_role_required, confirmation_required, invalid_transition and action_pending. Needs the API key scope sims:manage.",
    pathParameters: simActionParameter,
    headers: [actionIdempotencyKey],
    requestBody: { schema: 'SimActionRequest', example: { action: 'suspend', reason: 'reported stolen' } },
    success: { status: 202, description: 'Asked for: the action, pending.', schema: 'SimAction', example: exampleAction, headers: idempotentReplayedHeader },
    errors: [
      'insufficient_scope',
      'invalid_json',
      'invalid_action',
      'sim_action_invalid_request',
      'confirmation_required',
      'admin_role_required',
      'not_found',
      'invalid_transition',
      'action_pending',
      'idempotency_key_reused',
      'idempotency_request_in_progress',
      'operator_not_configured',
    ],
    takesBody: true,
  },
  'list-sim-actions': {
    tag: 'SIM actions',
    summary: "List a SIM's actions",
    description: "The SIM's actions, newest first, paged as the SIM list is (page, page_size; count and total_pages). Needs the API key scope sims:manage.",
    pathParameters: simActionParameter,
    query: simActionsQuerySchema,
    success: {
      status: 200,
      description: "A page of the SIM's actions.",
      schema: 'SimActionList',
      example: { count: 1, page: 1, page_size: 25, total_pages: 1, results: [exampleAction] },
    },
    errors: ['insufficient_scope', 'invalid_page', 'invalid_page_size', 'not_found'],
    takesBody: false,
  },
  'get-sim-action': {
    tag: 'SIM actions',
    summary: 'Get a SIM action',
    description: "One action of the SIM. Another SIM's action, or anything that is not an action id, is 404 not_found. Needs the API key scope sims:manage.",
    pathParameters: {
      ...simActionParameter,
      action_id: { name: 'action_id', schema: actionIdParameterSchema, example: exampleAction.action_id },
    },
    success: { status: 200, description: 'The action.', schema: 'SimAction', example: { ...exampleAction, status: 'completed', completed_at: '2026-11-25T12:00:00.412+00:00' } },
    errors: ['insufficient_scope', 'not_found'],
    takesBody: false,
  },
  'list-sims': {
    tag: 'SIMs',
    summary: 'List SIMs',
    description:
      "A page of the SIMs in the API key's customer group (the customer and all its sub-customers), by SIM id ascending. With updated_after the pages follow the order of update instead (page 1 holds the SIMs updated first after the instant, the last page those updated last; changes applied within a moment of each other by different writers may come in either order), and the SIMs of a page are listed by id: a client that pages through from page 1 sees every SIM updated since once, as a sync wants. Either order is stable while the table is unchanged. count and total_pages reflect every change made at least about a second before the request. Parameters are checked in the order listed; the first invalid one answers. List requests must be at least 5 seconds apart (429 rate_limited_poll_interval). Needs the API key scope sims:read.",
    // The time only moves updated_after's 31-day bound, which the document states in words.
    query: listSimsQuerySchema(0),
    success: {
      status: 200,
      description: 'A page of SIMs.',
      schema: 'SimList',
      example: { count: 1, page: 1, page_size: 25, total_pages: 1, results: [exampleSim] },
    },
    errors: ['insufficient_scope', 'invalid_page', 'invalid_page_size', 'invalid_status_filter', 'invalid_updated_after', 'updated_after_range_exceeded', 'customer_not_found', 'rate_limited_poll_interval'],
    takesBody: false,
  },
  'get-sim': {
    tag: 'SIMs',
    summary: 'Get a SIM',
    description: "One SIM by its internal id. A SIM outside the key's scope answers exactly like a missing one (404 not_found). Needs the API key scope sims:read.",
    pathParameters: simIdParameter,
    success: { status: 200, description: 'The SIM.', schema: 'Sim', example: exampleSim },
    errors: ['insufficient_scope', 'not_found'],
    takesBody: false,
  },
  'send-sms': {
    tag: 'SMS',
    summary: 'Send an SMS',
    description:
      'Sends a mobile-terminated SMS to a SIM in scope; the MSISDN is looked up. The body rules are checked in order (invalid_json, message_required, invalid_message, message_too_long, invalid_message_id, message_id_too_long, invalid_callback_url) before the SIM (404), then duplicate_message_id, no_msisdn, sms_not_configured and the provider. A message_id beginning mo- in any case is invalid_message_id (those are the ids of messages from SIMs), even when it is also over 48 characters. With a callback_url, the delivery receipt is posted there later (webhook deliveryReceipt). Needs the API key scope sms:send.',
    pathParameters: iccidParameter,
    requestBody: {
      schema: 'SmsRequest',
      example: { message: 'Hello from the fleet console', message_id: 'm-42', callback_url: 'https://hooks.example.com/sms-receipts' },
    },
    success: {
      status: 202,
      description: 'Accepted by the network provider.',
      schema: 'SmsSubmission',
      example: { message_id: 'm-42', status: 'sent', iccid: '8944500000000001001', msisdn: '447700900001' },
    },
    errors: [
      'insufficient_scope',
      'invalid_json',
      'message_required',
      'invalid_message',
      'message_too_long',
      'invalid_message_id',
      'message_id_too_long',
      'invalid_callback_url',
      'not_found',
      'duplicate_message_id',
      'no_msisdn',
      'sms_provider_error',
      'sms_provider_unreachable',
      'sms_not_configured',
    ],
    takesBody: true,
  },
  'get-sms': {
    tag: 'SMS',
    summary: "Read a message's state",
    description:
      "The current state of a message sent to this SIM (beyond the spec: for a caller that missed a receipt; `direction` mt), or a message this SIM sent to the service (two-way SMS, the sms.received event: `direction` mo, with its text). 404 not_found unless the message exists, was accepted by the provider, was sent to or by this ICCID and its SIM's owner is in the key's scope. Needs the API key scope sms:send.",
    pathParameters: {
      ...iccidParameter,
      message_id: {
        name: 'message_id',
        schema: messageIdParameterSchema,
        example: 'm-42',
      },
    },
    success: {
      status: 200,
      description: "The message's state.",
      schema: 'SmsMessageState',
      example: {
        message_id: 'm-42',
        direction: 'mt',
        iccid: '8944500000000001001',
        msisdn: '447700900001',
        status: 'delivered',
        submitted_at: '2026-11-22T10:00:00.010+00:00',
        received_at: '2026-11-22T10:00:00.212+00:00',
      },
    },
    errors: ['insufficient_scope', 'not_found'],
    takesBody: false,
  },
  'create-webhook': {
    tag: 'Webhooks',
    summary: 'Subscribe to lifecycle events',
    description:
      "Subscribes an HTTPS URL of the key's customer to lifecycle events of its SIMs and credentials and of every sub-customer's. The fields are checked in the order url, events, description; the first that fails answers. The answer carries the `whsec_` signing secret, shown only here (and after a rotation): keep it to verify the webhook-signature of every delivery. At most 10 subscriptions per customer (409 webhook_limit_reached).",
    requestBody: {
      schema: 'CreateWebhookRequest',
      example: { url: 'https://hooks.example.com/sim-events', events: ['line.activated', 'line.suspended'], description: 'fleet dashboard' },
    },
    success: {
      status: 201,
      description: 'Subscribed: the subscription with its signing secret (shown only here).',
      schema: 'WebhookSubscriptionWithSecret',
      example: { ...exampleSubscription, secret: 'whsec_QMqQEA/HX+PF8W8k4DG/ntqn8Dl5s0vLVGPrd2RIU2Q=' },
    },
    errors: ['invalid_json', 'webhook_invalid_request', 'invalid_webhook_url', 'invalid_webhook_events', 'invalid_webhook_description', 'webhook_limit_reached'],
    takesBody: true,
  },
  'list-webhooks': {
    tag: 'Webhooks',
    summary: 'List webhook subscriptions',
    description: "The key's customer's subscriptions, oldest first, without their secrets. Not a sub-customer's nor a parent's: each customer group manages its own.",
    success: {
      status: 200,
      description: "The key's customer's subscriptions.",
      schema: 'WebhookSubscriptionList',
      example: { count: 1, results: [exampleSubscription] },
    },
    errors: [],
    takesBody: false,
  },
  'get-webhook': {
    tag: 'Webhooks',
    summary: 'Get a webhook subscription',
    description: "One subscription of the key's customer, without its secret. Another customer's answers exactly like a missing one (404 webhook_not_found).",
    pathParameters: webhookIdParameter,
    success: { status: 200, description: 'The subscription.', schema: 'WebhookSubscription', example: exampleSubscription },
    errors: ['webhook_not_found'],
    takesBody: false,
  },
  'rotate-webhook-secret': {
    tag: 'Webhooks',
    summary: "Rotate a subscription's signing secret",
    description:
      'Makes a new signing secret, shown only in this answer. For the next 24 hours every delivery carries two signatures (`v1,<new> v1,<old>`), so a receiver still holding the previous secret keeps verifying while it switches. Each retired secret signs for 24 hours from its retirement, at most the 3 most recently retired beside the current one, so a second rotation within the day does not cut the first one short. No request body.',
    pathParameters: webhookIdParameter,
    success: {
      status: 200,
      description: 'The subscription with its new signing secret (shown only here).',
      schema: 'WebhookSubscriptionWithSecret',
      example: { ...exampleSubscription, secret: 'whsec_EYXm0wLYcRa4DftNx5wqnclWAuFvleAThpOMsHYYZPE=' },
    },
    errors: ['webhook_not_found'],
    takesBody: false,
  },
  'list-webhook-deliveries': {
    tag: 'Webhooks',
    summary: "List a subscription's delivery attempts",
    description:
      'The 100 most recent delivery attempts of the subscription, newest first (kept 30 days): one entry per attempt, with the next attempt\'s time while retries remain (after 1 min, 5 min, 30 min, 2 h, 6 h, 12 h; 7 attempts in all).',
    pathParameters: webhookIdParameter,
    success: {
      status: 200,
      description: 'The most recent attempts, newest first.',
      schema: 'WebhookDeliveryList',
      example: {
        results: [
          {
            event_id: 'evt_9161cfe9971fe134c479c5692590329a',
            type: 'line.suspended',
            attempt: 2,
            outcome: 'delivered',
            http_status: 204,
            error: null,
            attempted_at: '2026-11-25T12:01:02.410+00:00',
            next_attempt_at: null,
          },
          {
            event_id: 'evt_9161cfe9971fe134c479c5692590329a',
            type: 'line.suspended',
            attempt: 1,
            outcome: 'failed',
            http_status: 500,
            error: 'http_error',
            attempted_at: '2026-11-25T12:00:01.120+00:00',
            next_attempt_at: '2026-11-25T12:01:02+00:00',
          },
        ],
      },
    },
    errors: ['webhook_not_found'],
    takesBody: false,
  },
  'delete-webhook': {
    tag: 'Webhooks',
    summary: 'Delete a webhook subscription',
    description: 'Deletes the subscription and answers it as it was. Nothing is delivered to it afterwards: jobs already queued for it are dropped.',
    pathParameters: webhookIdParameter,
    success: { status: 200, description: 'The deleted subscription.', schema: 'WebhookSubscription', example: exampleSubscription },
    errors: ['webhook_not_found'],
    takesBody: false,
  },
  'receive-sms-receipt': {
    tag: 'Internal',
    summary: "Receive the SMS provider's delivery report",
    description:
      "The SMS provider reports a message's outcome (docs/sms-provider-api.md). The HMAC signature is checked on the raw body first; a receipt that moves the message is forwarded to the message's callback_url.",
    headers: [
      {
        name: 'X-Provider-Signature',
        in: 'header',
        required: true,
        description: '`sha256=` and the hex HMAC-SHA256 of the raw body under SMS_RECEIPT_SECRET (else 401 invalid_signature).',
        schema: { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
        example: 'sha256=5d41402abc4b2a76b9719d911017c5925d41402abc4b2a76b9719d911017c592',
      },
    ],
    requestBody: {
      schema: 'ProviderReceipt',
      example: { reference: 'm-42', provider_message_id: 'prov-9', status: 'delivered', occurred_at: '2026-11-22T10:00:00.000Z' },
    },
    success: {
      status: 200,
      description: 'The receipt was taken (also for a repeat or an unknown reference, so that the provider stops retrying).',
      schema: 'ProviderReceiptAnswer',
      example: { reference: 'm-42', status: 'delivered', outcome: 'recorded' },
    },
    errors: ['invalid_signature', 'invalid_json', 'invalid_receipt'],
    takesBody: true,
  },
  'checkout-esim': {
    tag: 'Checkout',
    summary: 'eSIM checkout',
    description:
      'Prices the cart live (VAT by buyer country), holds eSIM stock, writes a pending order and creates a payment intent. Lines with topup_iccid top up an eSIM the buyer owns or is assigned. Business and Travel plans cannot be mixed. The order in which errors win is in docs/area-b.md.',
    headers: [idempotencyKey],
    requestBody: { schema: 'EsimCheckoutRequest', example: checkoutBody('/api/v1/checkout') },
    success: checkoutSuccess,
    errors: [...checkoutErrors, 'mixed_cart_not_allowed', 'business_purchase_not_allowed', 'esim_not_found', 'out_of_stock', 'business_email_required'],
    takesBody: true,
  },
  'checkout-physical': {
    tag: 'Checkout',
    summary: 'Physical SIM checkout',
    description:
      'As the eSIM checkout, for physical SIM plans, with a shipping address. customer_name and shipping_address.name fall back to each other; at least one is required.',
    headers: [idempotencyKey],
    requestBody: { schema: 'PhysicalCheckoutRequest', example: checkoutBody('/api/v1/physical-checkout') },
    success: checkoutSuccess,
    errors: [...checkoutErrors, 'invalid_shipping_address', 'out_of_stock'],
    takesBody: true,
  },
  'checkout-iot': {
    tag: 'Checkout',
    summary: 'IoT contract checkout',
    description:
      'As the eSIM checkout, for IoT contract plans, with billing and shipping addresses and a data-processing consent record. Every buyer is a business; no stock is held.',
    headers: [idempotencyKey],
    requestBody: { schema: 'IotCheckoutRequest', example: checkoutBody('/api/v1/iot-physical-checkout') },
    success: checkoutSuccess,
    errors: [...checkoutErrors, 'invalid_shipping_address', 'invalid_billing_address', 'data_processing_consent_required'],
    takesBody: true,
  },
  'stripe-webhook': {
    tag: 'Internal',
    summary: "Receive Stripe's payment events",
    description:
      'Stripe posts payment_intent.succeeded, payment_failed and canceled events here (docs/fulfilment.md). The Stripe-Signature is verified on the raw body; payment events are queued for fulfilment and every verified event is acknowledged.',
    headers: [
      {
        name: 'Stripe-Signature',
        in: 'header',
        required: true,
        description: "Stripe's signature header `t=<unix seconds>,v1=<hex HMAC-SHA256>` under STRIPE_WEBHOOK_SECRET, at most 5 minutes old (else 400 invalid_signature).",
        schema: { type: 'string' },
        example: 't=1763805600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd',
      },
    ],
    requestBody: {
      schema: 'StripeEvent',
      description: "A Stripe event object, as Stripe sends it (only Stripe's own fields are read).",
      example: {
        id: 'evt_1',
        object: 'event',
        type: 'payment_intent.succeeded',
        data: { object: { id: 'pi_3QAbCdEfGhIjKlMn', object: 'payment_intent', amount_received: 1440, currency: 'gbp', metadata: { order_id: '6f1c2b1e-8d4a-4c3e-9b7a-2f0e5d6c7b8a' } } },
      },
    },
    success: { status: 200, description: 'Verified and acknowledged.', schema: 'StripeWebhookAnswer', example: { received: true } },
    errors: ['stripe_invalid_signature', 'webhook_not_configured'],
    takesBody: true,
  },
};
