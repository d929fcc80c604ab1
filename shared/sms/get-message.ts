import { ApiError } from '../http/api-error';
import { getMessage, isVisibleStatus, type MessageTable } from './message-store';
import { isPossibleMessageId } from './message-id';
import { isValidIccid } from './sim-target';
import type { SmsMessageState } from './sms-schema';

/** The reconciliation view of a message: the type of smsMessageStateSchema (./sms-schema.ts). */
export type { SmsMessageState } from './sms-schema';

/**
 * The current state of a message, for a caller that missed a receipt (reconciliation, beyond
 * the spec). 404 `not_found` unless the message exists, was accepted by the provider (a
 * submission still in flight is not shown), was sent to the ICCID of the path, and its SIM's
 * owner at submission is in the caller's scope. One strongly consistent GetItem (MSG#<id>),
 * made only for an ICCID of 1 to 20 digits and a message id that could exist (at most 48
 * characters, no lone surrogate, U+FFFE, U+FFFF or control character): anything else names
 * no message and is 404 at once.
 */
export const getMessageState = async (
  table: MessageTable,
  scopeCustomerId: string,
  iccid: string,
  messageId: string,
): Promise<SmsMessageState> => {
  const notFound = new ApiError(404, 'not_found', 'Not found.');
  if (!isValidIccid(iccid) || !isPossibleMessageId(messageId)) throw notFound;
  const message = await getMessage(table, messageId);
  if (
    !message ||
    !isVisibleStatus(message.status) ||
    message.iccid !== iccid ||
    !(message.owner_customer_path ?? []).includes(scopeCustomerId)
  ) {
    throw notFound;
  }
  return {
    message_id: message.message_id,
    iccid: message.iccid,
    msisdn: message.msisdn ?? '',
    status: message.status as SmsMessageState['status'],
    submitted_at: message.submitted_at,
    received_at: message.received_at ?? null,
  };
};
