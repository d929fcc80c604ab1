/**
 * Inbound (two-way) SMS (issue #21; docs/sms.md, "Messages from SIMs"): the JSON objects the
 * origination number's two-way channel publishes to its SNS topic (`originationNumber`,
 * `destinationNumber`, `messageBody`, `inboundMessageId`, `previousPublishedMessageId`,
 * `messageKeyword`). Each one from a SIM's MSISDN is stored once as that SIM's message, readable
 * through the read-back route with `direction: mo`; its INSERT in the table's stream makes the
 * `sms.received` lifecycle event (shared/webhooks/stream-changes.ts).
 */
import { createHash } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../db/conditions';
import type { SmsInboundItem } from '../db/items';
import { key } from '../db/keys';
import { appendLogKeys } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { findSimByMsisdn, msisdnDigits } from '../msisdn/msisdn-index';
import { inboundMessageIdPrefix } from './message-id';
import { findMessageByProviderId, type MessageTable } from './message-store';
import { isoWithOffset } from './time';

/** An inbound SMS as this service reads it. */
export interface InboundSms {
  /** The sender's number (the SIM's MSISDN in E.164). */
  originationNumber: string;
  /** The service's number it was sent to. */
  destinationNumber: string | null;
  messageBody: string;
  /** The network's id of this inbound message: a repeat of it is taken once. */
  inboundMessageId: string;
  /** The network's id of the message it answers (one we sent), if any. */
  previousPublishedMessageId: string | null;
  /** The registered keyword the network matched, if any. */
  messageKeyword: string | null;
}

/** A message that is not an inbound SMS (not JSON, no sender or id): it is dropped, not retried. `field` names the field at fault, if one is. */
export class MalformedInboundSms extends Error {
  override name = 'MalformedInboundSms';
  constructor(
    message: string,
    readonly field?: 'originationNumber' | 'inboundMessageId' | 'messageBody',
  ) {
    super(message);
  }
}

/** Lone surrogates, U+FFFE, U+FFFF and control characters other than tab and line breaks cannot be stored or queued: replaced. */
const uncarriable = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

const optionalText = (value: unknown, max: number): string | null =>
  typeof value === 'string' && value !== '' && value.length <= max ? value.replace(uncarriable, '\ufffd') : null;

/** Reads an inbound SMS from the SNS message text; MalformedInboundSms when it is not one. */
export const parseInboundSms = (message: string): InboundSms => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    throw new MalformedInboundSms('the message is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new MalformedInboundSms('the message is not a JSON object');
  const fields = parsed as Record<string, unknown>;
  const originationNumber = optionalText(fields.originationNumber, 32);
  const inboundMessageId = optionalText(fields.inboundMessageId, 200);
  if (!originationNumber || !msisdnDigits(originationNumber)) {
    throw new MalformedInboundSms('originationNumber must be the sending SIM\'s number in E.164 (a string of at most 32 characters, such as "+447700900001")', 'originationNumber');
  }
  if (!inboundMessageId) {
    throw new MalformedInboundSms('inboundMessageId must be a non-empty string of at most 200 characters: the network\'s id of the message (a repeat of an id is taken once)', 'inboundMessageId');
  }
  if (typeof fields.messageBody !== 'string') throw new MalformedInboundSms('messageBody must be a string (the text the SIM sent)', 'messageBody');
  return {
    originationNumber,
    destinationNumber: optionalText(fields.destinationNumber, 32),
    messageBody: fields.messageBody.replace(uncarriable, '\ufffd'),
    inboundMessageId,
    previousPublishedMessageId: optionalText(fields.previousPublishedMessageId, 200),
    messageKeyword: optionalText(fields.messageKeyword, 64),
  };
};

/**
 * The message id an inbound SMS is stored and read back under: `mo-` and the network's
 * inboundMessageId (a UUID), or `mo-` and a SHA-256 of an id that is not one; the same id for
 * every delivery of one inbound message, so a repeat is taken once (a conditional put). Sent
 * messages' ids are UUIDs or the callers' own, which may not begin `mo-` in any case
 * (./message-id.ts, callerMessageIdPattern; 400 invalid_message_id), so no sent message holds
 * an inbound message's id.
 */
export const inboundMessageId = (networkId: string): string =>
  /^[A-Za-z0-9-]{1,45}$/.test(networkId)
    ? `${inboundMessageIdPrefix}${networkId}`
    : `${inboundMessageIdPrefix}${createHash('sha256').update(networkId).digest('hex').slice(0, 40)}`;

/** What receiving one inbound SMS did. */
export type InboundOutcome = 'stored' | 'repeat' | 'unknown_number';

/** What receiving inbound SMS needs. */
export interface InboundDeps {
  table: MessageTable;
  now: () => Date;
}

/**
 * Receives one inbound SMS: finds the SIM whose MSISDN is its originationNumber's digits
 * (the MSISDN index, shared/msisdn/msisdn-index.ts); an unknown number is logged (the logger
 * shows its last four digits), counted and dropped. Otherwise the message is stored once under
 * `inboundMessageId(...)` (a repeated inboundMessageId is a `repeat`), as the SIM's owner's,
 * with `in_reply_to`: our message_id when previousPublishedMessageId is the network's id of an
 * SMS we sent to this same SIM (else null). The stream then makes `sms.received`.
 */
export const receiveInboundSms = async (deps: InboundDeps, inbound: InboundSms): Promise<InboundOutcome> => {
  const sim = await findSimByMsisdn(deps.table, inbound.originationNumber);
  if (!sim) {
    // The logger shows only the number's last four digits (shared/observability/redaction.ts).
    logger.warn('inbound sms from an unknown number dropped', { origination_number: inbound.originationNumber });
    recordMetric('InboundSms', { outcome: 'unknown_number' });
    return 'unknown_number';
  }
  const messageId = inboundMessageId(inbound.inboundMessageId);
  appendLogKeys({ message_id: messageId, sim_id: sim.id });
  let inReplyTo: string | null = null;
  if (inbound.previousPublishedMessageId) {
    const answered = await findMessageByProviderId(deps.table, inbound.previousPublishedMessageId);
    if (answered && answered.iccid === sim.iccid) inReplyTo = answered.message_id;
  }
  const item: SmsInboundItem = {
    ...key.message(messageId),
    type: 'sms_inbound',
    message_id: messageId,
    direction: 'mo',
    inbound_message_id: inbound.inboundMessageId,
    sim_id: sim.id,
    iccid: sim.iccid,
    msisdn: msisdnDigits(inbound.originationNumber),
    owner_customer_id: sim.customer_id,
    owner_customer_path: sim.customer_path,
    message: inbound.messageBody,
    keyword: inbound.messageKeyword,
    destination_number: inbound.destinationNumber,
    received_at: isoWithOffset(deps.now()),
    in_reply_to: inReplyTo,
  };
  const stored = await sendUnlessConditionFails(
    deps.table.db,
    new PutCommand({ TableName: deps.table.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }),
  );
  const outcome: InboundOutcome = stored ? 'stored' : 'repeat';
  recordMetric('InboundSms', { outcome });
  logger.info(stored ? 'inbound sms stored' : 'inbound sms repeated: taken once', { in_reply_to: inReplyTo });
  return outcome;
};
