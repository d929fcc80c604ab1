/**
 * Every error `code` docs/openapi.json names, once, with its status and an example answer.
 * The operations (./operations.ts) list the codes they can answer by name; the document shows
 * them as an enum per status, each with this example. The spec's codes (SPEC.md "Errors"),
 * the service's own codes (docs/area-a.md, docs/area-b.md, docs/sms.md, docs/fulfilment.md,
 * docs/webhooks.md)
 * and the codes the deployed API Gateway answers for any operation
 * (infra/constructs/gateway-responses.ts: payload_too_large, rate_limited) are here; what
 * the document leaves out, and why, is in docs/openapi.md.
 */

/** One error code: its HTTP status, when it is answered, and an example detail. */
export interface ErrorCode {
  /** The `code` of the body when it is not the catalog key (one code with two statuses). */
  code?: string;
  status: number;
  /** When it is answered (the example's summary). */
  when: string;
  /** An example `detail`, as the service words it. */
  detail: string;
}

const code = (status: number, when: string, detail: string, bodyCode?: string): ErrorCode => ({
  status,
  when,
  detail,
  ...(bodyCode ? { code: bodyCode } : {}),
});

/** The catalog, by code. */
export const errorCodes = {
  // Area A, authentication (SPEC.md "Authentication"; docs/area-a.md).
  bearer_token_required: code(401, 'No Authorization: Bearer header', 'A personal bearer token is required: Authorization: Bearer bearer_<prefix>_<secret>.'),
  invalid_bearer_token: code(401, 'Bearer token malformed, unknown or revoked, or the Authorization header sent more than once', 'The bearer token is invalid or has been revoked.'),
  user_inactive: code(401, "The token's user account is inactive", "The bearer token's user account is inactive."),
  api_key_required: code(401, 'No API key header', 'An API key is required in the X-Customer-API-Key (or X-service-API-Key) header.'),
  invalid_api_key: code(401, 'API key malformed, unknown or revoked, an API key header sent more than once, or the two API key headers with different keys', 'The API key is invalid or has been revoked.'),
  developer_access_required: code(403, 'The user lacks the developer role', 'The user does not have the developer role.'),
  tenant_scope_mismatch: code(403, "The key's customer is not the user's customer or below it", "The API key belongs to a different customer group than the user's."),
  insufficient_scope: code(403, 'The API key lacks the scope the operation needs: sims:read, sms:send or sims:manage (our code, issue #33)', 'The API key does not have the sims:read scope this operation needs.'),
  // Area A, rate limits (429 with Retry-After and retry_after_seconds).
  rate_limited_burst: code(429, 'More than 10 requests in 10 seconds', 'Rate limit exceeded: at most 10 requests per 10 seconds.'),
  rate_limited_minute: code(429, 'More than 60 requests in a minute', 'Rate limit exceeded: at most 60 requests per minute.'),
  rate_limited_hour: code(429, 'More than 1,500 requests in an hour', 'Rate limit exceeded: at most 1500 requests per hour.'),
  rate_limited_poll_interval: code(429, 'Two list requests less than 5 seconds apart', 'List requests must be at least 5 seconds apart.'),
  // A1.
  invalid_page: code(400, 'page is not a whole number of 1 or more (our code)', 'page must be a whole number, 1 or more.'),
  invalid_page_size: code(400, 'page_size is not a whole number from 1 to 100 (our code)', 'page_size must be a whole number from 1 to 100.'),
  invalid_status_filter: code(400, 'status is not a SIM status', 'status must be one of: active, inactive, suspended, cancelled, stock, dispatched, trial.'),
  invalid_updated_after: code(400, 'updated_after is not an ISO-8601 date-time', 'updated_after must be an ISO-8601 date-time, such as 2026-11-20T10:00:00+00:00.'),
  updated_after_range_exceeded: code(400, 'updated_after is more than 31 days back', 'updated_after may be at most 31 days in the past.'),
  customer_not_found: code(404, "customer names no customer in the key's scope", "No customer with this name in the API key's customer group."),
  // A2, A3, unknown paths.
  not_found: code(404, "No such SIM (or message) in the key's scope, or no such path", 'Not found.'),
  method_not_allowed: code(405, 'The path exists with other methods (see the Allow header)', 'Method DELETE is not allowed on this path; use GET.'),
  // A3 (SPEC.md A3 rules; docs/sms.md).
  invalid_json: code(400, 'The body is not valid JSON (or empty)', 'The request body is not valid JSON.'),
  message_required: code(400, 'No message, an empty one, or not a string', 'The message field is required.'),
  invalid_message: code(
    400,
    'message holds a character that cannot be carried (our code)',
    'message must be well-formed Unicode text without U+FFFE, U+FFFF or control characters other than tab, line feed and carriage return.',
  ),
  message_too_long: code(400, 'message over 160 characters', 'message must be at most 160 characters.'),
  invalid_message_id: code(
    400,
    'message_id empty, not a string, with a control character, or beginning mo- in any case (reserved for messages from SIMs; our code)',
    'message_id must be a non-empty string of well-formed Unicode without U+FFFE, U+FFFF or control characters.',
  ),
  message_id_too_long: code(400, 'message_id over 48 characters', 'message_id must be at most 48 characters.'),
  invalid_callback_url: code(400, 'callback_url not HTTPS or not publicly reachable', 'callback_url must use HTTPS.'),
  duplicate_message_id: code(409, 'message_id already used, by anyone', 'message_id has already been used.'),
  no_msisdn: code(422, 'The SIM has no MSISDN', 'The SIM has no MSISDN.'),
  sms_provider_error: code(502, 'The SMS provider answered with an error', 'The SMS provider returned an error.'),
  sms_provider_unreachable: code(502, 'The SMS provider could not be reached in time', 'The SMS provider could not be reached.'),
  sms_not_configured: code(503, "SMS is not enabled on the SIM owner's account, or not configured", 'SMS is not enabled on the account.'),
  // Area B, authentication (docs/area-b.md: the spec leaves these codes open).
  service_token_required: code(401, 'No Authorization: Bearer header (our code)', 'An Authorization: Bearer <service token> header is required.'),
  invalid_service_token: code(401, 'Not the configured service token (our code)', 'The service token is not valid.'),
  // B1, B2, B3 (SPEC.md "Errors", Area B; docs/area-b.md "Which error wins").
  invalid_request: code(400, 'Malformed cart, missing or bad field, or a malformed Idempotency-Key', 'cart[0].quantity must be an integer from 1 to 10.'),
  invalid_shipping_address: code(400, 'shipping_address missing, or a bad name, line1, city, postal_code or country', 'shipping_address.city must be a non-empty string of at most 100 characters.'),
  invalid_billing_address: code(400, 'billing_address missing, or a bad line1, city, postal_code or country', 'billing_address is required.'),
  data_processing_consent_required: code(400, 'data_processing_consent missing, not agreed, or incomplete', 'data_processing_consent.agreed must be true.'),
  mixed_cart_not_allowed: code(400, 'Business and Travel plans in one cart', 'A cart may not mix Business plans with Travel plans.'),
  business_purchase_not_allowed: code(
    403,
    'Business cart for an existing consumer or traveler account',
    'customer_email belongs to an existing consumer or traveler account, which cannot buy Business plans.',
  ),
  unknown_sku: code(404, 'No published plan of this endpoint matches the SKU', 'cart[0].catalog_sku "TRAVEL-XX" matches no published eSIM plan.'),
  esim_not_found: code(404, 'topup_iccid matches no eSIM owned by or assigned to customer_email', 'cart[0].topup_iccid matches no eSIM owned by or assigned to customer_email.'),
  out_of_stock: code(409, 'Not enough unassigned stock', 'Not enough eSIM stock for this cart.'),
  idempotency_key_reused: code(409, 'The Idempotency-Key was used with another body (our code)', 'This Idempotency-Key was already used with a different request body.'),
  idempotency_request_in_progress: code(
    409,
    'A request with this Idempotency-Key is still running (our code)',
    'A request with this Idempotency-Key is still in progress; retry later.',
  ),
  no_price: code(422, 'The matched plan has no price', 'cart[0].catalog_sku "TRAVEL-EU-5GB" has no price.'),
  business_email_required: code(
    422,
    'Business cart with a free or personal e-mail provider',
    'customer_email must be a business address for Business plans, not one of a free or personal e-mail provider.',
  ),
  tax_fail: code(502, 'VAT calculation failed', 'VAT could not be calculated for this order; try again later.'),
  stripe_error: code(502, 'The payment processor refused or failed', 'The payment processor could not create the payment intent; try again later.'),
  stripe_not_configured: code(503, 'No payment processor in this environment', 'The payment processor is not configured in this environment.'),
  // Internal routes (docs/sms-provider-api.md, docs/fulfilment.md).
  invalid_signature: code(401, 'X-Provider-Signature missing or wrong', 'The X-Provider-Signature header is missing or does not match the body.'),
  invalid_receipt: code(400, 'No reference, one that is no message id, or another status', 'reference must be a non-empty string.'),
  stripe_invalid_signature: code(
    400,
    'Stripe-Signature missing, wrong or too old',
    'The Stripe-Signature header is missing or does not match the body.',
    'invalid_signature',
  ),
  webhook_not_configured: code(503, 'No STRIPE_WEBHOOK_SECRET in this environment', 'The Stripe webhook is not configured in this environment.'),
  // Webhook subscriptions (issue #15; docs/webhooks.md "Error codes"). The create body's fields are checked in the order url, events, description.
  webhook_invalid_request: code(
    400,
    'The create body is JSON but not an object',
    'The request body must be a JSON object: {"url": "https://...", "events": [...], "description": "..."}.',
    'invalid_request',
  ),
  invalid_webhook_url: code(
    400,
    'url missing, not an absolute HTTPS URL, with credentials, over 2,048 characters, not resolving, or resolving to a non-public address (our code)',
    'url must use HTTPS.',
  ),
  invalid_webhook_events: code(
    400,
    'events not a non-empty array of known event types (our code)',
    'events contains unknown event types: "line.deleted"; known: line.activated, line.suspended, usage.updated, identity.rotated, identity.verified, sms.received.',
  ),
  invalid_webhook_description: code(
    400,
    'description not well-formed text of at most 200 characters, or null (our code)',
    'description must be well-formed text (no lone surrogates or control characters other than tab and line breaks) of at most 200 characters, or null.',
  ),
  webhook_not_found: code(404, "No subscription with this id for the key's customer: another customer's, deleted, or not an id (our code)", 'No webhook subscription with this id.'),
  webhook_limit_reached: code(
    409,
    'The customer has 10 subscriptions already (our code)',
    'This customer has 10 webhook subscriptions, the most allowed; delete one first.',
  ),
  // SIM actions (issue #33; docs/sim-actions.md "Error codes").
  invalid_action: code(
    400,
    'The body is not {action, reason?, confirm?}: an action not in the list, a reason over 200 characters, a field of another type or an unknown field (our code)',
    'action must be one of activate, suspend, resume, terminate.',
  ),
  confirmation_required: code(400, "terminate without confirm, or confirm not the SIM's ICCID (our code)", 'terminate needs "confirm": "<the SIM\'s ICCID>" in the body.'),
  sim_action_invalid_request: code(400, 'A malformed Idempotency-Key header', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.', 'invalid_request'),
  admin_role_required: code(403, 'terminate by a user without the admin role (our code)', 'Terminating a SIM needs a user with the admin role.'),
  invalid_transition: code(409, "The action is not allowed from the SIM's status, which the detail names (our code)", 'SIM 1001 is suspended: suspend is allowed from active, trial.'),
  action_pending: code(409, 'The SIM has a pending action already: at most one at a time (our code)', 'SIM 1001 has a pending action (act_019a7f3c2b1d8e4f6a0b2c9d7e5f): ask again once it has completed or failed.'),
  operator_not_configured: code(503, "No operator's provisioning system in this environment (OPERATOR_PROVISIONING_URL unset; our code)", "The operator's provisioning system is not configured in this environment: SIM actions are not available."),
  // Any operation.
  payload_too_large: code(413, 'The body is over 10 MB (API Gateway)', 'The request body exceeds the maximum of 10485760 bytes.'),
  rate_limited: code(429, "The stage's throttling (API Gateway)", 'Too many requests; retry later.'),
  internal_error: code(500, 'An unexpected error (logged with the request id)', 'An internal error occurred.'),
} satisfies Record<string, ErrorCode>;

/** The name of a catalogued code. */
export type ErrorCodeName = keyof typeof errorCodes;

/** The `code` a catalogued entry answers with. */
export const bodyCode = (name: ErrorCodeName): string => (errorCodes[name] as ErrorCode).code ?? name;
