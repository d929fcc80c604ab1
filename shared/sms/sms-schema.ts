import * as v from 'valibot';
import { maxMessageIdCharacters } from './message-id';

/**
 * Area A's SMS bodies as valibot schemas (SPEC.md A3, A4; docs/sms.md): the one source of the
 * types the handlers return (imported as types only, so the bundles do not carry this module)
 * and of their JSON Schema in docs/openapi.json, which the HTTP tests check every answer
 * against. A3's request body is a schema of its own, the one the route validates with
 * (./submission.ts).
 */

const messageStatuses = ['sent', 'delivered', 'expired', 'failed'] as const;

const isoWithOffset = (description: string) => v.pipe(v.string(), v.isoTimestamp(), v.description(description));

/** The message_id path parameter of the read-back: 1 to 48 characters (anything else is 404 not_found). */
export const messageIdParameterSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(maxMessageIdCharacters),
  v.description('The message_id of the submission (percent-encoded in the path).'),
);

/** A3's 202 body (SPEC.md, "SMS submission result"). */
export const smsSubmissionSchema = v.pipe(
  v.strictObject({
    message_id: v.pipe(v.string(), v.description("The caller's message_id, or the generated one.")),
    status: v.pipe(v.literal('sent'), v.description('Always sent on submission.')),
    iccid: v.pipe(v.string(), v.description('Target SIM.')),
    msisdn: v.pipe(v.string(), v.description('MSISDN looked up for the SIM.')),
  }),
  v.description('The SMS was accepted by the network provider.'),
);

/** The read-back of a message the service sent (mobile-terminated). */
export const sentMessageStateSchema = v.pipe(
  v.strictObject({
    message_id: v.string(),
    direction: v.pipe(v.literal('mt'), v.description('mt: a message the service sent to the SIM (A3).')),
    iccid: v.string(),
    msisdn: v.string(),
    status: v.pipe(v.picklist(messageStatuses), v.description('sent until a delivery receipt arrives, then its outcome.')),
    submitted_at: isoWithOffset('When the provider accepted the message, UTC with +00:00.'),
    received_at: v.pipe(
      v.nullable(v.pipe(v.string(), v.isoTimestamp())),
      v.description('When the delivery receipt was received; null while sent.'),
    ),
  }),
  v.description("A sent message's current state."),
);

/** The read-back of a message a SIM sent to the service (mobile-originated, two-way SMS). */
export const receivedMessageStateSchema = v.pipe(
  v.strictObject({
    message_id: v.pipe(v.string(), v.description('mo- and the network\'s inbound message id.')),
    direction: v.pipe(v.literal('mo'), v.description('mo: a message the SIM sent (two-way SMS; the sms.received event).')),
    iccid: v.string(),
    msisdn: v.pipe(v.string(), v.description("The SIM's MSISDN, which sent it.")),
    status: v.pipe(v.literal('received'), v.description('Always received.')),
    message: v.pipe(v.string(), v.description('The text the SIM sent.')),
    received_at: isoWithOffset('When the service received it, UTC with +00:00.'),
    in_reply_to: v.pipe(
      v.nullable(v.string()),
      v.description('The message_id of the SMS the service sent to this SIM that it answers, when the network tells; else null.'),
    ),
  }),
  v.description('A message the SIM sent to the service.'),
);

/** The reconciliation view of a message (GET .../sms/{message_id}/, beyond the spec): sent or received. */
export const smsMessageStateSchema = v.pipe(
  v.variant('direction', [sentMessageStateSchema, receivedMessageStateSchema]),
  v.description("A message's current state: one the service sent (direction mt) or one the SIM sent (direction mo)."),
);

/** The delivery receipt the service posts to callback_url (SPEC.md A4, "Delivery receipt"). */
export const deliveryReceiptSchema = v.pipe(
  v.strictObject({
    message_id: v.pipe(v.string(), v.description('Same as the submission.')),
    iccid: v.string(),
    msisdn: v.string(),
    status: v.pipe(v.picklist(['delivered', 'expired', 'failed']), v.description('Outcome reported by the network.')),
    received_at: isoWithOffset('When the service received the receipt, UTC with +00:00.'),
  }),
  v.description('Delivery receipt of a message submitted with a callback_url.'),
);

/** The SMS provider's receipt to the service (docs/sms-provider-api.md). */
export const providerReceiptSchema = v.pipe(
  v.object({
    reference: v.pipe(v.string(), v.minLength(1), v.maxLength(maxMessageIdCharacters), v.description('The message_id the service gave the provider.')),
    provider_message_id: v.optional(v.pipe(v.string(), v.description("The provider's own id (informational)."))),
    status: v.picklist(['delivered', 'expired', 'failed']),
    occurred_at: v.optional(v.pipe(v.string(), v.description('When the outcome happened (informational; stored when at most 64 characters).'))),
  }),
  v.description('A delivery report from the SMS network provider.'),
);

/** The service's 200 answer to a provider receipt. */
export const receiptAnswerSchema = v.pipe(
  v.strictObject({
    reference: v.string(),
    status: v.pipe(v.nullable(v.string()), v.description("The message's status after this receipt; null for an unknown reference.")),
    outcome: v.pipe(
      v.picklist(['recorded', 'repeat', 'ignored', 'unknown_reference']),
      v.description('recorded: the message moved; repeat: already in this state; ignored: already in another final state; unknown_reference: no such message.'),
    ),
  }),
  v.description('The receipt was received.'),
);

/** A3's 202 body. */
export type SmsSubmissionResult = v.InferOutput<typeof smsSubmissionSchema>;
/** The reconciliation view of a message. */
export type SmsMessageState = v.InferOutput<typeof smsMessageStateSchema>;
/** The answer to a provider receipt. */
export type ReceiptAnswer = v.InferOutput<typeof receiptAnswerSchema>;
