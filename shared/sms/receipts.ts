import { appendLogKeys } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors/api-error';
import type { ReceiptQueue } from '../callbacks/receipt-queue';
import { applyReceipt, terminalStatuses, type MessageTable, type TerminalStatus } from './message-store';
import type { SmsMessageItem } from '../db/items';
import { isoWithOffset } from './time';
import { isCarriableText } from '../text/characters';
import { isPossibleMessageId } from './message-id';
import type { ReceiptAnswer } from './sms-schema';

/** The longest `occurred_at` that is stored; a longer (or otherwise odd) one is stored as null. */
export const maxOccurredAtCharacters = 64;

/**
 * True when `X-Provider-Signature` is `sha256=<hex HMAC-SHA256 of the raw body>` under the
 * receipt secret, compared in constant time. False for a missing secret or header.
 */
export const isValidProviderSignature = (rawBody: Buffer, header: string | undefined, secret: string | undefined): boolean => {
  if (!secret || !header) return false;
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match) return false;
  const given = Buffer.from(match[1]!, 'hex');
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(given, expected);
};

/** A provider's delivery receipt, as docs/sms-provider-api.md defines it. */
export interface ProviderReceipt {
  reference: string;
  status: TerminalStatus;
  occurredAt: string | null;
}

/**
 * Parses a (signature-checked) receipt body; 400 `invalid_receipt` when it is not one: no
 * `reference`, a `reference` that is not a message id this service could have sent (empty,
 * over 48 characters, or with a lone surrogate, U+FFFE, U+FFFF or a control character; it is
 * refused before any table access, so no input makes a key DynamoDB refuses), or a status
 * other than delivered, expired, failed. `occurred_at` is informational: kept when it is a
 * string of at most 64 carriable characters, else null.
 */
export const parseProviderReceipt = (rawBody: Buffer): ProviderReceipt => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new ApiError(400, 'invalid_json', 'The receipt body is not valid JSON.');
  }
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  if (typeof fields.reference !== 'string' || fields.reference === '') {
    throw new ApiError(400, 'invalid_receipt', 'reference must be a non-empty string.');
  }
  if (!isPossibleMessageId(fields.reference)) {
    throw new ApiError(
      400,
      'invalid_receipt',
      'reference must be a message id: at most 48 characters of well-formed Unicode without U+FFFE, U+FFFF or control characters.',
    );
  }
  if (!terminalStatuses.includes(fields.status as TerminalStatus)) {
    throw new ApiError(400, 'invalid_receipt', `status must be one of ${terminalStatuses.join(', ')}.`);
  }
  return {
    reference: fields.reference,
    status: fields.status as TerminalStatus,
    occurredAt:
      typeof fields.occurred_at === 'string' &&
      fields.occurred_at.length <= maxOccurredAtCharacters &&
      isCarriableText(fields.occurred_at)
        ? fields.occurred_at
        : null,
  };
};

/** What recording a receipt needs. */
export interface ReceiptDeps {
  table: MessageTable;
  /** The callbacks queue; undefined when CALLBACK_QUEUE_URL is not configured. */
  queue: ReceiptQueue | undefined;
  now: () => Date;
}

/** The 200 answer to the provider: the type of receiptAnswerSchema (./sms-schema.ts). */
export type { ReceiptAnswer } from './sms-schema';

/**
 * Records a delivery receipt (spec "SMS message" states): moves the message from sent to the
 * reported terminal state once, recording received_at, and, only for the receipt that made
 * that move and only when the message has a callback_url, puts the receipt onto the callbacks
 * queue, so each transition is forwarded exactly once. Repeats, reports for a message already
 * in another terminal state, and unknown references are acknowledged and change nothing.
 */
export const recordReceipt = async (deps: ReceiptDeps, receipt: ProviderReceipt): Promise<ReceiptAnswer> => {
  const receivedAt = isoWithOffset(deps.now());
  appendLogKeys({ message_id: receipt.reference });
  const result = await applyReceipt(deps.table, receipt.reference, receipt.status, receivedAt, receipt.occurredAt);
  if (result.outcome === 'unknown_reference') {
    logger.warn('sms receipt for an unknown message', { status: receipt.status });
    recordMetric('Receipts', { status: receipt.status });
    return { reference: receipt.reference, status: null, outcome: 'unknown_reference' };
  }
  const message = result.message;
  if (message.correlation_id) appendLogKeys({ origin_correlation_id: message.correlation_id });
  if (result.outcome === 'ignored') {
    logger.warn('sms receipt ignored: the message is already in a terminal state', { reported: receipt.status, current: message.status });
  }
  recordMetric('Receipts', { status: receipt.status });
  if (result.outcome === 'recorded') await queueForForwarding(deps.queue, message, receipt.status, receivedAt);
  logger.info('sms receipt recorded', { status: receipt.status, outcome: result.outcome, forwarded: result.outcome === 'recorded' && message.callback_url !== null });
  return { reference: receipt.reference, status: message.status, outcome: result.outcome };
};

/**
 * Puts the delivery receipt of a message that has just moved to `status` onto the callbacks
 * queue, when it has a callback_url (A4): called only by the write that made the move, so each
 * message's receipt is forwarded once. When the queue cannot be reached the move stays recorded
 * and the receipt is logged as an ERROR for a manual replay (a retry of the report would be a
 * repeat and queue nothing): its msisdn and callback_url as the logger shows them (last four
 * digits, origin: shared/observability/redaction.ts); the whole values are in the message item.
 */
export const queueForForwarding = async (
  queue: ReceiptQueue | undefined,
  message: SmsMessageItem,
  status: TerminalStatus,
  receivedAt: string,
): Promise<void> => {
  if (!message.callback_url) return;
  const queued = {
    receipt: { message_id: message.message_id, iccid: message.iccid, msisdn: message.msisdn ?? '', status, received_at: receivedAt },
    callback_url: message.callback_url,
    customer_id: message.sender_customer_id,
  };
  if (!queue) {
    logger.error('CALLBACK_QUEUE_URL is not configured; receipt not forwarded');
    return;
  }
  try {
    await queue.enqueue(queued);
  } catch (error) {
    logger.error('receipt could not be queued for forwarding', { queued, error: error instanceof Error ? error.message : String(error) });
  }
};
