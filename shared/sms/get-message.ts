import { getAnyMessage, isVisibleStatus, type MessageTable } from './message-store';
import { isPossibleMessageId } from './message-id';
import { iccidNotFound, isValidIccid } from './sim-target';
import type { SmsMessageState } from './sms-schema';

/** The reconciliation view of a message: the type of smsMessageStateSchema (./sms-schema.ts). */
export type { SmsMessageState } from './sms-schema';

/**
 * The current state of a message, for a caller that missed a receipt (reconciliation, beyond
 * the spec): one the service sent (`direction: mt`), or one the SIM sent to the service
 * (two-way SMS, `direction: mo`, with its text). 404 `not_found` unless the message exists, was
 * accepted by the provider (a submission still in flight is not shown), was sent to or by the
 * ICCID of the path, and its SIM's owner at the time is in the caller's scope. One strongly consistent GetItem (MSG#<id>),
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
  const notFound = iccidNotFound(iccid);
  if (!isValidIccid(iccid) || !isPossibleMessageId(messageId)) throw notFound;
  const message = await getAnyMessage(table, messageId);
  if (!message || message.iccid !== iccid || !(message.owner_customer_path ?? []).includes(scopeCustomerId)) throw notFound;
  if (message.type === 'sms_inbound') {
    return {
      message_id: message.message_id,
      direction: 'mo',
      iccid: message.iccid,
      msisdn: message.msisdn,
      status: 'received',
      message: message.message,
      received_at: message.received_at,
      in_reply_to: message.in_reply_to,
    };
  }
  if (message.type !== 'sms_message' || !isVisibleStatus(message.status)) throw notFound;
  return {
    message_id: message.message_id,
    direction: 'mt',
    iccid: message.iccid,
    msisdn: message.msisdn ?? '',
    status: message.status as 'sent' | 'delivered' | 'expired' | 'failed',
    submitted_at: message.submitted_at,
    received_at: message.received_at ?? null,
  };
};
