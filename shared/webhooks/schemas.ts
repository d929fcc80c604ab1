import * as v from 'valibot';
import { isCarriableText } from '../text/characters';
import { eventTypes } from './event-types';
import { subscriptionIdPattern } from './secret-box';

/**
 * The request and response bodies of the webhook subscription routes (issue #15) as valibot
 * schemas, in one module so that the OpenAPI document (issue #13) can turn them into JSON
 * Schema. The create request is validated with CreateWebhookRequest; the responses (strict:
 * no other fields) are built to match the others (test/area-a-webhooks checks the answers
 * against them).
 */

/** Longest `description` accepted (characters). */
export const maxDescriptionLength = 200;

/** POST /developer/api/webhooks/ body. Unknown fields are ignored. */
export const CreateWebhookRequest = v.object({
  url: v.pipe(
    v.string(),
    v.description(
      'HTTPS URL, at most 2,048 characters, no user name or password, whose host resolves only to public addresses (the callback_url rules; else 400 invalid_webhook_url); checked again at every delivery.',
    ),
  ),
  events: v.optional(
    v.pipe(
      v.array(v.picklist(eventTypes)),
      v.minLength(1),
      v.description('Event types to receive; default every type but sms.received. Unknown names are refused (400 invalid_webhook_events); duplicates are dropped.'),
    ),
  ),
  description: v.optional(
    v.nullable(
      v.pipe(
        v.string(),
        v.maxLength(maxDescriptionLength),
        v.check(isCarriableText),
        v.description('Free text for the subscriber, well-formed Unicode without control characters other than tab and line breaks (else 400 invalid_webhook_description).'),
      ),
    ),
  ),
});

/** The `{webhook_id}` path parameter (documentation: the routes answer 404 webhook_not_found to anything else). */
export const WebhookIdParameter = v.pipe(
  v.string(),
  v.regex(subscriptionIdPattern),
  v.description("A subscription id of the key's customer. Anything else (another customer's, a deleted one, not an id at all) is 404 webhook_not_found."),
);

/** A subscription as every route answers it (never with its secret). */
export const WebhookSubscription = v.strictObject({
  id: v.pipe(v.string(), v.regex(subscriptionIdPattern), v.description('wh_ and 24 hexadecimal digits')),
  url: v.string(),
  events: v.array(v.picklist(eventTypes)),
  description: v.nullable(v.string()),
  status: v.pipe(v.picklist(['active', 'failing']), v.description('failing: a run of events exhausted their retries; deliveries continue')),
  created_at: v.pipe(v.string(), v.isoTimestamp()),
});

/** The answer of create and rotate-secret: the subscription with its (new) signing secret, shown only here. */
export const WebhookSubscriptionWithSecret = v.strictObject({
  ...WebhookSubscription.entries,
  secret: v.pipe(
    v.string(),
    v.regex(/^whsec_[A-Za-z0-9+/]{43}=$/),
    v.description('Standard Webhooks signing secret: whsec_ and the base64 of 32 random bytes. Shown only in this answer: keep it to verify the webhook-signature of the deliveries.'),
  ),
});

/** GET /developer/api/webhooks/: the key's customer's subscriptions, oldest first. */
export const WebhookSubscriptionList = v.strictObject({
  count: v.pipe(v.number(), v.integer(), v.minValue(0), v.description('How many subscriptions the customer has (at most 10).')),
  results: v.array(WebhookSubscription),
});

/** One delivery attempt. */
export const WebhookDelivery = v.strictObject({
  event_id: v.string(),
  type: v.picklist(eventTypes),
  attempt: v.pipe(v.number(), v.integer(), v.minValue(1)),
  outcome: v.picklist(['delivered', 'failed']),
  http_status: v.nullable(v.number()),
  error: v.pipe(v.nullable(v.string()), v.description('why the attempt failed when there was no 2xx: refused_url, refused_address, http_error, timeout, ...')),
  attempted_at: v.pipe(v.string(), v.isoTimestamp()),
  next_attempt_at: v.nullable(v.pipe(v.string(), v.isoTimestamp())),
});

/** GET /developer/api/webhooks/<id>/deliveries/: the most recent attempts (at most 100), newest first. */
export const WebhookDeliveryList = v.strictObject({
  results: v.array(WebhookDelivery),
});

/** A subscription as answered (WebhookSubscription). */
export type WebhookSubscriptionView = v.InferOutput<typeof WebhookSubscription>;
/** A delivery attempt as answered (WebhookDelivery). */
export type WebhookDeliveryView = v.InferOutput<typeof WebhookDelivery>;
