import { characterCount, isIdentifierText } from '../text/characters';

/** Longest caller-supplied message id, in characters (spec A3, "Request limits"). */
export const maxMessageIdCharacters = 48;

/**
 * The prefix of the ids inbound SMS are stored and read back under (`mo-` and the network's id:
 * ./inbound.ts, inboundMessageId). Message ids are global (one `MSG#<id>` item each), so a
 * caller's id with this prefix could take an inbound message's id before the message arrives,
 * and the message would then be dropped as a repeat.
 */
export const inboundMessageIdPrefix = 'mo-';

/**
 * The rule of a caller's message_id beyond its characters and length: it does not begin with
 * `mo-` in any case (`mo-`, `MO-`, `Mo-`, `mO-`), so no caller can shadow an inbound message.
 * Case-insensitive although keys are not: an id that reads as an inbound one would mislead
 * whoever reads it back. ASCII letters only (no `i` flag, so that JSON Schema's `pattern`,
 * which has no flags, states the same rule in docs/openapi.json).
 */
export const callerMessageIdPattern = /^(?![Mm][Oo]-)/;

/**
 * What is wrong with a message id, if anything: `invalid` when it is empty or not an
 * identifier (a lone surrogate, U+FFFE, U+FFFF or a control character: see
 * shared/text/characters.ts), else `too_long` over 48 characters (code points). The form is
 * judged first, as docs/sms.md orders the two codes.
 */
export const messageIdProblem = (messageId: string): 'invalid' | 'too_long' | undefined => {
  if (messageId === '' || !isIdentifierText(messageId)) return 'invalid';
  if (characterCount(messageId) > maxMessageIdCharacters) return 'too_long';
  return undefined;
};

/**
 * True when `value` could be a message id (one the service generates, a UUID, or one a caller
 * could have chosen): a string that messageIdProblem finds nothing wrong with. Anything else
 * names no message, so it is answered without reading the table (and so can never make a key
 * DynamoDB refuses or two ids that DynamoDB would store alike).
 */
export const isPossibleMessageId = (value: unknown): value is string => typeof value === 'string' && messageIdProblem(value) === undefined;
