import * as v from 'valibot';
import { SimActionObject } from '../sim-actions/schemas';
import { simObjectSchema } from '../sims/sim-schema';

/**
 * The lifecycle events as delivered (docs/webhooks.md "Events") as valibot schemas: the
 * one source of the LifecycleEvent type the stream consumer builds and the delivery posts
 * (./event-types.ts, ./stream-changes.ts and ./deliver.ts import it as a type only, so the
 * bundles do not carry this module) and of the payload schemas of the OpenAPI document's
 * `webhooks` (scripts/openapi/webhooks.ts). Every event is `{id, type, timestamp, data}`;
 * `data` is shaped per type.
 */

const eventId = v.pipe(
  v.string(),
  v.regex(/^evt_[0-9a-f]{32}$/),
  v.description('Stable event id (also the webhook-id header), the same on every attempt and when a change is read twice: de-duplicate on it.'),
);

const eventTimestamp = v.pipe(
  v.string(),
  v.isoTimestamp(),
  v.description('When the change was written, ISO-8601 in UTC with +00:00 (locally to the minute, deployed to the second).'),
);

/** `data` of usage.updated: the SIM's ICCID and its month-to-date usage and cost, as in the SIM object. */
export const UsageUpdatedData = v.pipe(
  v.strictObject({
    iccid: simObjectSchema.pipe[0].entries.iccid,
    usage: simObjectSchema.pipe[0].entries.usage,
    cost: simObjectSchema.pipe[0].entries.cost,
  }),
  v.description("The SIM's month-to-date usage and cost after the change."),
);

const credential = <const Actions extends readonly [string, ...string[]]>(actions: Actions, description: string) =>
  v.pipe(
    v.strictObject({
      kind: v.pipe(v.picklist(['bearer_token', 'api_key']), v.description('Which credential: a personal bearer token or a customer-group API key.')),
      prefix: v.pipe(v.string(), v.description('The credential\'s public prefix (never its secret).')),
      user: v.pipe(v.nullable(v.string()), v.description("The bearer token's user id; null for an API key.")),
      action: v.picklist(actions),
    }),
    v.description(description),
  );

/** `data` of identity.rotated: a credential was issued (written unrevoked) or revoked. */
export const IdentityRotatedData = credential(['issued', 'revoked'], 'The credential that was issued or revoked (its prefix only).');

/** `data` of identity.verified: a newly issued credential authenticated for the first time. */
export const IdentityVerifiedData = credential(['verified'], 'The credential that authenticated for the first time (its prefix only).');

/** `data` of sms.received: a message a SIM sent to the service's number (two-way SMS, issue #21). */
export const SmsReceivedData = v.pipe(
  v.strictObject({
    iccid: v.pipe(v.string(), v.description('The SIM that sent it.')),
    msisdn: v.pipe(v.string(), v.description("The SIM's MSISDN (digits, no +), the message's sender.")),
    message_id: v.pipe(v.string(), v.description('Read it back under GET /developer/api/sims/{iccid}/sms/{message_id}/ (direction mo).')),
    message: v.pipe(v.string(), v.description('The text.')),
    received_at: v.pipe(v.string(), v.isoTimestamp(), v.description('When the service received it, UTC with +00:00.')),
    in_reply_to: v.pipe(v.nullable(v.string()), v.description('The message_id of the SMS the service sent to this SIM that it answers, when the network tells; else null.')),
  }),
  v.description('A message a SIM sent to the service (mobile-originated).'),
);

const event = <const Type extends string, const Data extends v.GenericSchema>(type: Type, data: Data, description: string) =>
  v.pipe(
    v.strictObject({
      id: eventId,
      type: v.literal(type),
      timestamp: eventTimestamp,
      data,
    }),
    v.description(description),
  );

/** line.activated: a SIM's status became `active`; `data` is the SIM object as A2 answers it to the subscriber's key. */
export const LineActivatedEvent = event('line.activated', simObjectSchema, "A SIM's status became active. data is the SIM object as A2 returns it to the subscriber's key (group relative to the subscriber).");

/** line.suspended: a SIM's status became `suspended`; `data` as line.activated. */
export const LineSuspendedEvent = event('line.suspended', simObjectSchema, "A SIM's status became suspended. data is the SIM object as A2 returns it to the subscriber's key (group relative to the subscriber).");

/** line.resumed: a suspended SIM's status became `active` again (issue #33), beside its line.activated; `data` as line.activated. */
export const LineResumedEvent = event('line.resumed', simObjectSchema, "A suspended SIM's status became active again. The change also makes line.activated, as every change to active does. data is the SIM object as A2 returns it to the subscriber's key.");

/** line.cancelled: a SIM's status became `cancelled` (issue #33); `data` as line.activated. */
export const LineCancelledEvent = event('line.cancelled', simObjectSchema, "A SIM's status became cancelled (terminated). data is the SIM object as A2 returns it to the subscriber's key.");

/** action.completed: a SIM action completed (issue #33); `data` is the action as its routes answer it. */
export const ActionCompletedEvent = event('action.completed', SimActionObject, 'A SIM action completed: the operator confirmed it and the SIM has the status it asked for. data is the action as GET /developer/api/sims/{sim}/actions/{action_id}/ answers it.');

/** action.failed: a SIM action failed (issue #33); `data` is the action with its `failure`. */
export const ActionFailedEvent = event('action.failed', SimActionObject, 'A SIM action failed: rejected by the operator, not confirmed within 24 hours, or superseded by another status (data.failure says which). data is the action as its routes answer it.');

/** usage.updated: a SIM's month-to-date usage or cost figures changed. */
export const UsageUpdatedEvent = event('usage.updated', UsageUpdatedData, "A SIM's month-to-date usage or cost figures changed (data_used_mb, data_overage_mb, base_cost, overage_cost).");

/** identity.rotated: a bearer token or API key of the customer was issued or revoked. */
export const IdentityRotatedEvent = event('identity.rotated', IdentityRotatedData, 'A bearer token or API key of the customer was issued or revoked.');

/** identity.verified: a newly issued credential authenticated successfully for the first time. */
export const IdentityVerifiedEvent = event('identity.verified', IdentityVerifiedData, 'A newly issued bearer token or API key authenticated successfully for the first time.');

/** sms.received: a SIM sent an SMS to the service's number (two-way SMS, issue #21); chosen explicitly, not in the default set. */
export const SmsReceivedEvent = event('sms.received', SmsReceivedData, "A SIM sent an SMS to the service's number. Not in the default events of a subscription: name it in events.");

/** Any lifecycle event, told apart by `type`. */
export const LifecycleEventSchema = v.variant('type', [
  LineActivatedEvent,
  LineSuspendedEvent,
  LineResumedEvent,
  LineCancelledEvent,
  UsageUpdatedEvent,
  IdentityRotatedEvent,
  IdentityVerifiedEvent,
  ActionCompletedEvent,
  ActionFailedEvent,
  SmsReceivedEvent,
]);

/** One lifecycle event as delivered. */
export type LifecycleEvent = v.InferOutput<typeof LifecycleEventSchema>;
/** The `data` of the events of one type. */
export type LifecycleEventData<Type extends LifecycleEvent['type']> = Extract<LifecycleEvent, { type: Type }>['data'];
