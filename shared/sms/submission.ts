import * as v from 'valibot';
import { CallbackUrlRefused, checkCallbackUrl, maxCallbackUrlLength, type CallbackUrlPolicy } from '../callbacks/callback-url';
import { isCarriableText, isIdentifierText } from '../text/characters';
import { codedAnswers, refusalMessage } from '../validation/coded-message';
import { validateWithAsync } from '../validation/validate';
import { callerMessageIdPattern, maxMessageIdCharacters } from './message-id';

/**
 * A3's request body as a valibot schema: the rules 2 to 5 of spec A3 that the send-sms route
 * validates with (through shared/validation/, each message carrying the spec's code and detail)
 * and the SmsRequest component of docs/openapi.json. Lengths are Unicode code points, as JSON
 * Schema counts them and as the service does.
 */

/** Longest SMS text, in characters (Unicode code points, not bytes or UTF-16 units). */
export const maxMessageCharacters = 160;

/** An SMS request whose body passed rules 2 to 5 of spec A3. */
export interface SmsRequest {
  message: string;
  /** The caller's id; undefined when one is to be generated. */
  messageId?: string;
  /** Normalised callback URL, or null when none was given. */
  callbackUrl: string | null;
}

const messageRequired = refusalMessage('message_required', 'The message field is required.');
const messageNotString = refusalMessage('message_required', 'The message field must be a string.');
const invalidMessage = refusalMessage(
  'invalid_message',
  'message must be well-formed Unicode text without U+FFFE, U+FFFF or control characters other than tab, line feed and carriage return.',
);
const messageTooLong = refusalMessage('message_too_long', `message must be at most ${maxMessageCharacters} characters.`);
const invalidMessageId = refusalMessage(
  'invalid_message_id',
  'message_id must be a non-empty string of well-formed Unicode without U+FFFE, U+FFFF or control characters.',
);
const reservedMessageId = refusalMessage(
  'invalid_message_id',
  'message_id must not begin with "mo-" (in any case): ids beginning mo- are those of messages from SIMs.',
);
const messageIdTooLong = refusalMessage('message_id_too_long', `message_id must be at most ${maxMessageIdCharacters} characters.`);
const callbackUrlNotString = refusalMessage('invalid_callback_url', 'callback_url must be a non-empty string.');

/**
 * A3's body fields, each judged in this order (a body that is not an object has no message):
 * the SmsRequest component of docs/openapi.json. smsRequestSchema adds the callback's host check.
 */
export const smsBodySchema = v.pipe(
  v.object(
    {
      message: v.pipe(
        v.string((issue) => (issue.input === undefined || issue.input === null ? messageRequired : messageNotString)),
        v.minLength(1, messageRequired),
        v.check(isCarriableText, invalidMessage),
        v.maxCodePoints(maxMessageCharacters, messageTooLong),
        v.description(
          `The text, 1 to ${maxMessageCharacters} characters (Unicode code points). No lone surrogate, U+FFFE, U+FFFF or control character other than tab, line feed and carriage return (400 invalid_message).`,
        ),
      ),
      message_id: v.optional(
        v.nullable(
          v.pipe(
            v.string(invalidMessageId),
            v.minLength(1, invalidMessageId),
            v.check(isIdentifierText, invalidMessageId),
            // The prefix of inbound messages' ids, refused before the length: a long mo- id is invalid_message_id.
            v.regex(callerMessageIdPattern, reservedMessageId),
            v.maxCodePoints(maxMessageIdCharacters, messageIdTooLong),
            v.description(
              `Caller's correlation id, globally unique, 1 to ${maxMessageIdCharacters} characters without control characters, U+FFFE or U+FFFF, not beginning with mo- in any case (reserved for messages from SIMs) (400 invalid_message_id, judged before message_id_too_long). Generated (a UUID) when omitted or null.`,
            ),
          ),
        ),
      ),
      callback_url: v.optional(
        v.nullable(
          v.pipe(
            v.string(callbackUrlNotString),
            // What checkCallbackUrl enforces once every field passed (smsRequestSchema), for the document.
            v.metadata({ format: 'uri', pattern: '^https://', maxLength: maxCallbackUrlLength }),
            v.description(
              'HTTPS URL on a publicly reachable host (no user name or password) that receives the delivery receipt (see the webhook deliveryReceipt). Else 400 invalid_callback_url.',
            ),
          ),
        ),
      ),
    },
    messageRequired,
  ),
  v.description('An SMS to send. Unknown fields are ignored; null counts as absent for message_id and callback_url.'),
);

/**
 * A3's body under `policy`: message present, a non-empty string of carriable characters (else
 * 400 message_required, invalid_message: no lone surrogate, U+FFFE, U+FFFF or control
 * character other than tab and line breaks, see shared/text/characters.ts), at most 160
 * characters (message_too_long); message_id, when given, a non-empty string of carriable
 * characters without any control character and not beginning `mo-` in any case, the prefix of
 * inbound messages' ids (invalid_message_id, also when it is over 48 characters), at most 48
 * characters (message_id_too_long); then, once every field passed, callback_url, when given, HTTPS and
 * publicly reachable, its host resolved now (invalid_callback_url, checkCallbackUrl's detail).
 * `null` counts as absent for the optional fields. The output is the SmsRequest.
 */
export const smsRequestSchema = (policy: CallbackUrlPolicy) =>
  v.pipeAsync(
    smsBodySchema,
    v.rawTransformAsync(async ({ dataset, addIssue, NEVER }): Promise<SmsRequest> => {
      const { message, message_id: messageId, callback_url: callbackUrl } = dataset.value;
      const request = { message, ...(typeof messageId === 'string' ? { messageId } : {}) };
      if (callbackUrl === undefined || callbackUrl === null) return { ...request, callbackUrl: null };
      try {
        return { ...request, callbackUrl: await checkCallbackUrl(callbackUrl, policy) };
      } catch (error) {
        if (!(error instanceof CallbackUrlRefused)) throw error;
        addIssue({ message: refusalMessage('invalid_callback_url', error.detail) });
        return NEVER as never;
      }
    }),
  );

/** Validates an A3 body against smsRequestSchema (the first failing rule answers, in the order above). */
export const validateSubmission = (body: unknown, policy: CallbackUrlPolicy): Promise<SmsRequest> =>
  validateWithAsync(smsRequestSchema(policy), body, codedAnswers);
