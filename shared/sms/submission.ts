import { ApiError } from '../http/api-error';
import { CallbackUrlRefused, checkCallbackUrl, type CallbackUrlPolicy } from '../callbacks/callback-url';
import { characterCount, isCarriableText } from '../text/characters';
import { maxMessageIdCharacters, messageIdProblem } from './message-id';

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

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Checks an SMS request body against rules 2 to 5 of spec A3, in that order (rule 1, invalid
 * JSON, is the body parser's): message present, a non-empty string of carriable characters
 * (else 400 `invalid_message`: no lone surrogate, U+FFFE, U+FFFF or control character other
 * than tab and line breaks, see shared/text/characters.ts), at most 160 characters;
 * message_id, when given, a non-empty string of carriable characters without any control
 * character (else 400 `invalid_message_id`), at most 48 characters; callback_url, when given,
 * HTTPS and publicly reachable (its host resolved now). `null` counts as absent for the
 * optional fields.
 */
export const validateSubmission = async (body: unknown, policy: CallbackUrlPolicy): Promise<SmsRequest> => {
  const fields = isObject(body) ? body : {};
  const { message, message_id: messageId, callback_url: callbackUrl } = fields;
  if (message === undefined || message === null || message === '') {
    throw new ApiError(400, 'message_required', 'The message field is required.');
  }
  if (typeof message !== 'string') {
    throw new ApiError(400, 'message_required', 'The message field must be a string.');
  }
  if (!isCarriableText(message)) {
    throw new ApiError(
      400,
      'invalid_message',
      'message must be well-formed Unicode text without U+FFFE, U+FFFF or control characters other than tab, line feed and carriage return.',
    );
  }
  if (characterCount(message) > maxMessageCharacters) {
    throw new ApiError(400, 'message_too_long', `message must be at most ${maxMessageCharacters} characters.`);
  }
  if (messageId !== undefined && messageId !== null) {
    const problem = typeof messageId === 'string' ? messageIdProblem(messageId) : 'invalid';
    if (problem === 'invalid') {
      throw new ApiError(
        400,
        'invalid_message_id',
        'message_id must be a non-empty string of well-formed Unicode without U+FFFE, U+FFFF or control characters.',
      );
    }
    if (problem === 'too_long') {
      throw new ApiError(400, 'message_id_too_long', `message_id must be at most ${maxMessageIdCharacters} characters.`);
    }
  }
  let normalisedCallback: string | null = null;
  if (callbackUrl !== undefined && callbackUrl !== null) {
    try {
      normalisedCallback = await checkCallbackUrl(callbackUrl, policy);
    } catch (error) {
      if (error instanceof CallbackUrlRefused) throw new ApiError(400, 'invalid_callback_url', error.detail);
      throw error;
    }
  }
  return {
    message,
    ...(typeof messageId === 'string' ? { messageId } : {}),
    callbackUrl: normalisedCallback,
  };
};
