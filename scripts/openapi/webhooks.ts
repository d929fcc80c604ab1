import type { EventType } from '../../shared/webhooks/event-types';
import { componentRef } from './json-schema';

/**
 * The delivery receipt (SPEC.md A4, Events 1) as an OpenAPI 3.1 webhook: what the service
 * POSTs to a message's callback_url, signed as Standard Webhooks sign (docs/sms.md).
 */
export const deliveryReceiptWebhook = {
  post: {
    operationId: 'deliveryReceipt',
    tags: ['SMS'],
    summary: 'Delivery receipt to callback_url',
    description:
      "Posted once to the callback_url of a message when the network reports its outcome. Signed with the customer's `whsec_` secret (`npm run admin -- webhook-secret`), Standard Webhooks style; verify the signature on the raw body. Any 2xx answer is success; anything else is logged and not retried. HTTPS only, no redirects followed, 10 s in all.",
    security: [],
    parameters: [
      {
        name: 'webhook-id',
        in: 'header',
        required: true,
        description: '`<percent-encoded message_id>:<status>`, stable per receipt: use it to de-duplicate.',
        schema: { type: 'string' },
        example: 'm-42:delivered',
      },
      {
        name: 'webhook-timestamp',
        in: 'header',
        required: true,
        description: 'Unix seconds of the attempt; refuse one more than 5 minutes off.',
        schema: { type: 'string', pattern: '^[0-9]+$' },
        example: '1763805600',
      },
      {
        name: 'webhook-signature',
        in: 'header',
        required: true,
        description: '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` under the base64-decoded part of the `whsec_` secret.',
        schema: { type: 'string', pattern: '^v1,' },
        example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
      },
    ],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: { $ref: componentRef('DeliveryReceipt') },
          example: {
            message_id: 'm-42',
            iccid: '8944500000000001001',
            msisdn: '447700900001',
            status: 'delivered',
            received_at: '2026-11-22T10:00:00.212+00:00',
          },
        },
      },
    },
    responses: {
      // The receiver's answer: the service's own response headers (./headers.ts) do not apply.
      '2XX': { description: 'Received. The body of the answer is ignored (at most 1 KiB is read).' },
    },
  },
};

/** A SIM object as a line event's `data` carries it (the SIM as A2 answers it to the subscriber's key). */
const exampleSim = (status: 'active' | 'suspended' | 'cancelled', updatedAt: string) => ({
  id: 1001,
  iccid: '8944500000000001001',
  msisdn: '447700900001',
  status,
  connection_status: status === 'active' ? 'active' : 'inactive',
  customer_name: 'Acme North',
  group: 'Acme North',
  tariff_name: 'IoT 1GB',
  usage: { data_used_mb: '12.50', data_overage_mb: '0.00' },
  cost: { currency: 'GBP', base_cost: '£5.00', overage_cost: '£0.00', total_cost: '£5.00' },
  data_bundle: null,
  updated_at: updatedAt,
});

/** Each lifecycle event: its webhook's name, summary, when it is sent, payload schema and an example. */
const lifecycleEvents: { type: EventType; operationId: string; summary: string; when: string; schema: string; data: unknown; id: string }[] = [
  {
    type: 'line.activated',
    operationId: 'lineActivated',
    summary: 'line.activated: a SIM became active',
    when: "A SIM's status became `active` (a SIM written as active, or changed to it, from any status; from `suspended` the change makes line.resumed too). `data` is the SIM object exactly as A2 returns it to the subscriber's key (`group` relative to the subscriber).",
    schema: 'LineActivatedEvent',
    data: exampleSim('active', '2026-11-25T12:00:00+00:00'),
    id: 'evt_0b6e2f3c9a1d4e5f8a7b6c5d4e3f2a1b',
  },
  {
    type: 'line.suspended',
    operationId: 'lineSuspended',
    summary: 'line.suspended: a SIM was suspended',
    when: "A SIM's status became `suspended`. `data` is the SIM object exactly as A2 returns it to the subscriber's key (`group` relative to the subscriber).",
    schema: 'LineSuspendedEvent',
    data: exampleSim('suspended', '2026-11-25T12:00:00+00:00'),
    id: 'evt_9161cfe9971fe134c479c5692590329a',
  },
  {
    type: 'line.resumed',
    operationId: 'lineResumed',
    summary: 'line.resumed: a suspended SIM was made active again',
    when: "A SIM's status went from `suspended` to `active` (issue #33: a resume action completed, or any writer). The change also makes line.activated, as every change to active does: subscribe to line.resumed to tell resumes apart. `data` is the SIM object exactly as A2 returns it to the subscriber's key.",
    schema: 'LineResumedEvent',
    data: exampleSim('active', '2026-11-25T12:00:00+00:00'),
    id: 'evt_1f3e5d7c9b0a2e4d6c8b0a1f3e5d7c9b',
  },
  {
    type: 'line.cancelled',
    operationId: 'lineCancelled',
    summary: 'line.cancelled: a SIM was terminated',
    when: "A SIM's status became `cancelled` (issue #33: a terminate action completed, or any writer). `data` is the SIM object exactly as A2 returns it to the subscriber's key.",
    schema: 'LineCancelledEvent',
    data: exampleSim('cancelled', '2026-11-25T12:00:00+00:00'),
    id: 'evt_8d6b4f2e0c9a7b5d3f1e0c8a6b4d2f0e',
  },
  {
    type: 'usage.updated',
    operationId: 'usageUpdated',
    summary: "usage.updated: a SIM's usage or cost changed",
    when: "A SIM's month-to-date usage or cost figures changed (`data_used_mb`, `data_overage_mb`, `base_cost`, `overage_cost`). `data` is `{iccid, usage, cost}` as in the SIM object.",
    schema: 'UsageUpdatedEvent',
    data: {
      iccid: '8944500000000001001',
      usage: { data_used_mb: '1034.20', data_overage_mb: '10.20' },
      cost: { currency: 'GBP', base_cost: '£5.00', overage_cost: '£1.25', total_cost: '£6.25' },
    },
    id: 'evt_4c2a8e1f0d3b5a7c9e1f2d4b6a8c0e2f',
  },
  {
    type: 'identity.rotated',
    operationId: 'identityRotated',
    summary: 'identity.rotated: a credential was issued or revoked',
    when: 'A bearer token or API key of the customer was issued (written unrevoked) or revoked. `data` names it by its prefix only, never its secret; `user` is the token\'s user id, null for an API key.',
    schema: 'IdentityRotatedEvent',
    data: { kind: 'api_key', prefix: '3f9a1c7be204', user: null, action: 'issued' },
    id: 'evt_7e5d3c1b9a8f6e4d2c0b1a3f5e7d9c2b',
  },
  {
    type: 'identity.verified',
    operationId: 'identityVerified',
    summary: 'identity.verified: a new credential was first used',
    when: 'A newly issued bearer token or API key authenticated successfully for the first time (credentials loaded by the seed loader count as already used). `data` as identity.rotated, with `action: "verified"`.',
    schema: 'IdentityVerifiedEvent',
    data: { kind: 'bearer_token', prefix: 'a41d09e6c3f2', user: 'u-ada', action: 'verified' },
    id: 'evt_2b4d6f8a0c1e3a5c7e9b1d3f5a7c9e0d',
  },
  {
    type: 'action.completed',
    operationId: 'actionCompleted',
    summary: 'action.completed: a SIM action completed',
    when: "A SIM action (issue #33; `POST /developer/api/sims/{sim}/actions/`) completed: the operator confirmed it and the SIM has the status it asked for. `data` is the action as its routes answer it. The status change itself makes its line event (line.activated, line.suspended, line.resumed or line.cancelled).",
    schema: 'ActionCompletedEvent',
    data: {
      action_id: 'act_019a7f3c2b1d8e4f6a0b2c9d7e5f',
      sim: 1001,
      iccid: '8944500000000001001',
      action: 'suspend',
      status: 'completed',
      reason: 'reported stolen',
      requested_at: '2026-11-25T11:59:58.120+00:00',
      completed_at: '2026-11-25T12:00:00.412+00:00',
      failure: null,
    },
    id: 'evt_6c4a2e0f8d6b4a2c0e8f6d4b2a0c8e6f',
  },
  {
    type: 'action.failed',
    operationId: 'actionFailed',
    summary: 'action.failed: a SIM action failed',
    when: 'A SIM action failed: `failure.code` is `rejected_by_operator` (its `detail` the operator\'s reason), `operator_timeout` (no confirmation within 24 hours) or `superseded` (a record of the operator set another status first). `data` is the action as its routes answer it.',
    schema: 'ActionFailedEvent',
    data: {
      action_id: 'act_019a7f3c2b1d8e4f6a0b2c9d7e5f',
      sim: 1001,
      iccid: '8944500000000001001',
      action: 'suspend',
      status: 'failed',
      reason: 'reported stolen',
      requested_at: '2026-11-25T11:59:58.120+00:00',
      completed_at: '2026-11-25T12:00:01.001+00:00',
      failure: { code: 'rejected_by_operator', detail: 'SIM is under a legal hold' },
    },
    id: 'evt_0e2c4a6f8b0d2e4a6c8f0b2d4e6a8c0f',
  },
  {
    type: 'sms.received',
    operationId: 'smsReceived',
    summary: 'sms.received: a SIM sent an SMS',
    when: "A SIM sent an SMS to the service's number (two-way SMS, AWS End User Messaging; docs/sms.md). `data` carries the SIM, its MSISDN, the text, the `message_id` to read it back under (`GET /developer/api/sims/{iccid}/sms/{message_id}/`, `direction` mo) and `in_reply_to`, our `message_id` of the SMS it answers when the network tells. Not in the default events of a subscription: name it in `events`.",
    schema: 'SmsReceivedEvent',
    data: {
      iccid: '8944500000000001001',
      msisdn: '447700900001',
      message_id: 'mo-cae173d2-66b9-564c-8309-21f858e9fb84',
      message: 'STATUS OK battery 87%',
      received_at: '2026-11-25T12:00:00.412+00:00',
      in_reply_to: 'm-42',
    },
    id: 'evt_5a3c1e9f7d5b3a1c9e7f5d3b1a9c7e5f',
  },
];

/** The Standard Webhooks headers of a lifecycle event delivery (docs/webhooks.md "Delivery"). */
const lifecycleHeaders = (id: string) => [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event id (the body\'s `id`): the same on every attempt of this event. De-duplicate on it.',
    schema: { type: 'string', pattern: '^evt_[0-9a-f]{32}$' },
    example: id,
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt; refuse one more than 5 minutes off.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1764072000',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<raw body>">` under the base64-decoded part of the subscription\'s `whsec_` secret. For 24 hours after a rotation two signatures, space-separated (`v1,<new> v1,<old>`): accept the delivery when either verifies.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/=]+( v1,[A-Za-z0-9+/=]+)*$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
];

/**
 * The lifecycle events (docs/webhooks.md) as OpenAPI 3.1 webhooks, keyed by event type:
 * what the service POSTs to a subscription's URL (POST /developer/api/webhooks/), signed as
 * Standard Webhooks sign, retried with backoff until a 2xx.
 */
export const lifecycleEventWebhooks = Object.fromEntries(
  lifecycleEvents.map((event) => [
    event.type,
    {
      post: {
        operationId: event.operationId,
        tags: ['Webhooks'],
        summary: event.summary,
        description: `${event.when}\n\nPosted to the URL of every subscription to \`${event.type}\` of the SIM's or credential's owner and of each customer above it. Any 2xx within 10 s is success; anything else (no redirect is followed) is retried after 1 min, 5 min, 30 min, 2 h, 6 h and 12 h (about ±20 %), 7 attempts in all, with the same \`webhook-id\`. Verify the signature on the raw body.`,
        security: [],
        parameters: lifecycleHeaders(event.id),
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: componentRef(event.schema) },
              example: { id: event.id, type: event.type, timestamp: '2026-11-25T12:00:00+00:00', data: event.data },
            },
          },
        },
        responses: {
          // The receiver's answer: the service's own response headers (./headers.ts) do not apply.
          '2XX': { description: 'Received. The body of the answer is ignored (at most 1 KiB is read).' },
          default: { description: 'Anything else, or no answer within 10 s: the event is retried later (see the description).' },
        },
      },
    },
  ]),
);
