import { characterCount, isIdentifierText } from '../text/characters';

/** Longest caller-supplied message id, in characters (spec A3, "Request limits"). */
export const maxMessageIdCharacters = 48;

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
