/**
 * Delivery events of AWS End User Messaging SMS (issue #21; docs/sms.md, "Delivery events"): the
 * JSON objects the configuration set's SNS event destination publishes, one per change of a
 * sent message (`eventType` TEXT_*, `messageId`, `isFinal`, `messageStatus`, `eventTimestamp`,
 * and the `context` the message was sent with). Each is kept in its message's history; a final
 * one moves the message to its terminal state once and forwards the receipt (A4), as the
 * provider API's receipts do (./receipts.ts).
 */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../db/conditions';
import type { FulfilmentEffectItem } from '../db/items';
import { key } from '../db/keys';
import { appendLogKeys } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import type { ReceiptQueue } from '../callbacks/receipt-queue';
import { findMessageByProviderId, getMessage, recordDeliveryEvent, type HistoryEvent, type MessageTable, type TerminalStatus } from './message-store';
import { isPossibleMessageId } from './message-id';
import { queueForForwarding } from './receipts';
import { isoWithOffset } from './time';

/** A delivery event as this service reads it. */
export interface SmsDeliveryEventMessage {
  /** `eventType`: TEXT_DELIVERED, TEXT_PENDING, TEXT_CARRIER_UNREACHABLE, ... */
  eventType: string;
  /** `messageId`: the id SendTextMessage answered. */
  messageId?: string;
  /** `isFinal`: no further event will change the outcome. */
  isFinal: boolean;
  /** `messageStatus` (SUCCESSFUL, DELIVERED, PENDING, FAILED, ...). */
  messageStatus?: string;
  /** `eventTimestamp` in epoch milliseconds. */
  eventTimestamp?: number;
  /** `context`: what the message was sent with (`message_id`; a fulfilment SMS also `order_id` and `effect`). */
  context: Record<string, string>;
}

/** An event that is not one this service can use (not JSON, not an SMS event): it is dropped, not retried. */
export class MalformedSmsEvent extends Error {
  override name = 'MalformedSmsEvent';
}

/**
 * The event's message is not (yet) in the table: the event overtook the recording of its
 * message (or names one that was never recorded). Thrown so that the invocation is retried
 * (Lambda's asynchronous retries, then the consumer's dead-letter queue), never dropped.
 */
export class EventNotYetRecorded extends Error {
  override name = 'EventNotYetRecorded';
}

const text = (value: unknown, max = 200): string | undefined =>
  typeof value === 'string' && value.length > 0 && value.length <= max ? value : undefined;

/** Reads a delivery event from the SNS message text; MalformedSmsEvent when it is not one. */
export const parseDeliveryEvent = (message: string): SmsDeliveryEventMessage => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    throw new MalformedSmsEvent('the event is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new MalformedSmsEvent('the event is not a JSON object');
  const fields = parsed as Record<string, unknown>;
  const eventType = text(fields.eventType, 64);
  if (!eventType || !/^TEXT_[A-Z_]+$/.test(eventType)) throw new MalformedSmsEvent(`not an SMS event: eventType ${JSON.stringify(fields.eventType)}`);
  // Entries defined, not assigned: a context entry named __proto__ stays an entry.
  const context: Record<string, string> =
    typeof fields.context === 'object' && fields.context !== null && !Array.isArray(fields.context)
      ? Object.fromEntries(Object.entries(fields.context as Record<string, unknown>).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
      : {};
  const messageId = text(fields.messageId);
  const messageStatus = text(fields.messageStatus, 64);
  const timestamp = typeof fields.eventTimestamp === 'number' && Number.isFinite(fields.eventTimestamp) ? fields.eventTimestamp : undefined;
  return {
    eventType,
    ...(messageId ? { messageId } : {}),
    isFinal: fields.isFinal === true,
    ...(messageStatus ? { messageStatus } : {}),
    ...(timestamp !== undefined ? { eventTimestamp: timestamp } : {}),
    context,
  };
};

/**
 * The terminal state a final event means (docs/sms.md, "Delivery events"): TEXT_DELIVERED and
 * TEXT_SUCCESSFUL are `delivered` (AWS uses the two interchangeably by destination country: where
 * handsets report no delivery, the carrier's acceptance is the last word), TEXT_TTL_EXPIRED is
 * `expired`, any other final type `failed`. Undefined for an event that is not final.
 */
export const finalStatusOf = (event: Pick<SmsDeliveryEventMessage, 'eventType' | 'isFinal'>): TerminalStatus | undefined => {
  if (!event.isFinal) return undefined;
  if (event.eventType === 'TEXT_DELIVERED' || event.eventType === 'TEXT_SUCCESSFUL') return 'delivered';
  if (event.eventType === 'TEXT_TTL_EXPIRED') return 'expired';
  return 'failed';
};

/** The history entry and the repeat key of an event. */
const historyEvent = (event: SmsDeliveryEventMessage, recordedAt: string): HistoryEvent => {
  const occurredAt = event.eventTimestamp !== undefined ? isoWithOffset(new Date(event.eventTimestamp)) : null;
  return {
    key: [event.eventType, event.eventTimestamp ?? '', event.messageStatus ?? '', event.isFinal].join('|'),
    entry: { type: event.eventType, status: event.messageStatus ?? null, final: event.isFinal, occurred_at: occurredAt, recorded_at: recordedAt },
  };
};

/** What recording the delivery events needs. */
export interface DeliveryEventDeps {
  table: MessageTable;
  /** The callbacks queue (receipts to callback_url); undefined when CALLBACK_QUEUE_URL is not configured. */
  queue: ReceiptQueue | undefined;
  now: () => Date;
}

/** What an event did: recorded (moved its message), history, ignored (its message is already final), repeat. */
export type DeliveryEventResult = 'recorded' | 'history' | 'ignored' | 'repeat';

/**
 * Records the delivery events of a fulfilment SMS (activation, receipt) on its effect
 * (`ORDER#<id>` / `EFFECT#<effect>`, named by the `order_id` and `effect` of the context):
 * the history, and the first final event's state as `delivery_status`. There is no callback.
 */
const recordOnEffect = async (
  deps: DeliveryEventDeps,
  orderId: string,
  effect: string,
  event: HistoryEvent,
  finalStatus: TerminalStatus | undefined,
  receivedAt: string,
): Promise<DeliveryEventResult> => {
  const effectKey = key.fulfilmentEffect(orderId, effect);
  const found = (await deps.table.db.send(new GetCommand({ TableName: deps.table.tableName, Key: effectKey, ConsistentRead: true }))).Item as
    | FulfilmentEffectItem
    | undefined;
  if (found?.type !== 'fulfilment_effect') throw new EventNotYetRecorded(`no effect ${effect} of order ${orderId}`);
  const values = { ':none': [], ':event': [event.entry], ':key': event.key, ':keys': new Set([event.key]) };
  const attempt = async (final: boolean): Promise<boolean> => {
    try {
      await deps.table.db.send(
        new UpdateCommand({
          TableName: deps.table.tableName,
          Key: effectKey,
          UpdateExpression: `SET ${final ? 'delivery_status = :status, delivery_received_at = :received, ' : ''}delivery_events = list_append(if_not_exists(delivery_events, :none), :event) ADD delivery_event_keys :keys`,
          ConditionExpression: `attribute_exists(PK) AND (attribute_not_exists(delivery_event_keys) OR NOT contains(delivery_event_keys, :key))${final ? ' AND attribute_not_exists(delivery_status)' : ''}`,
          ExpressionAttributeValues: final ? { ...values, ':status': finalStatus, ':received': receivedAt } : values,
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  };
  if (finalStatus && (await attempt(true))) return 'recorded';
  if (await attempt(false)) return finalStatus ? 'ignored' : 'history';
  return 'repeat';
};

/**
 * Records one delivery event (docs/sms.md, "Delivery events"). Its message is found by the
 * `order_id` and `effect` of its context (a fulfilment SMS: recorded on the effect, no callback),
 * else by the `message_id` of its context, else by its `messageId` (the id SendTextMessage
 * answered, indexed when the message was confirmed). A message not found is
 * EventNotYetRecorded: the event is retried. Then:
 * - not final: kept in the message's history, nothing visible changes;
 * - final: the message moves from sent to delivered, expired or failed (`finalStatusOf`), once;
 *   only that move forwards the receipt to callback_url;
 * - a final event for a message already in a terminal state is kept in the history and changes
 *   nothing; a repeated event (same type, timestamp and status) changes nothing at all.
 */
export const recordSmsDeliveryEvent = async (deps: DeliveryEventDeps, event: SmsDeliveryEventMessage): Promise<DeliveryEventResult> => {
  const receivedAt = isoWithOffset(deps.now());
  const history = historyEvent(event, receivedAt);
  const finalStatus = finalStatusOf(event);
  const { order_id: orderId, effect, message_id: contextMessageId } = event.context;
  let result: DeliveryEventResult;
  if (orderId && effect) {
    appendLogKeys({ order_id: orderId, effect });
    result = await recordOnEffect(deps, orderId, effect, history, finalStatus, receivedAt);
  } else {
    let messageId: string | undefined;
    if (isPossibleMessageId(contextMessageId)) {
      messageId = (await getMessage(deps.table, contextMessageId))?.message_id;
    }
    if (!messageId && event.messageId) messageId = (await findMessageByProviderId(deps.table, event.messageId))?.message_id;
    if (!messageId) {
      throw new EventNotYetRecorded(
        `no message ${contextMessageId !== undefined ? `with message_id ${JSON.stringify(contextMessageId)}` : `with provider id ${JSON.stringify(event.messageId ?? null)}`} yet`,
      );
    }
    appendLogKeys({ message_id: messageId });
    const outcome = await recordDeliveryEvent(deps.table, messageId, history, finalStatus, receivedAt);
    result = outcome.outcome;
    if (outcome.outcome !== 'repeat' && outcome.message.correlation_id) appendLogKeys({ origin_correlation_id: outcome.message.correlation_id });
    if (outcome.outcome === 'recorded') await queueForForwarding(deps.queue, outcome.message, finalStatus!, receivedAt);
    if (outcome.outcome === 'ignored') {
      logger.warn('sms delivery event ignored: the message is already in a terminal state', { event_type: event.eventType, current: outcome.message.status });
    }
  }
  recordMetric('SmsDeliveryEvents', { event_type: event.eventType, outcome: result });
  logger.info('sms delivery event', {
    event_type: event.eventType,
    final: event.isFinal,
    ...(finalStatus ? { status: finalStatus } : {}),
    outcome: result,
    provider_message_id: event.messageId ?? null,
  });
  return result;
};
