import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, sendUnlessConditionFails, updatedUnlessConditionFails } from '../db/conditions';
import { gsi1, key } from '../db/keys';
import { itemAtGsi1Key } from '../db/gsi1-item';
import type { SmsDeliveryEvent, SmsInboundItem, SmsMessageItem, SmsMessageStatus } from '../db/items';

/** The table the messages live in. */
export interface MessageTable {
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** Seconds a reservation lives if its submission dies before confirming or releasing it. */
export const reservationSeconds = 300;

/** The receipt statuses: the terminal states of a message. */
export const terminalStatuses = ['delivered', 'expired', 'failed'] as const;
/** A terminal state of a message. */
export type TerminalStatus = (typeof terminalStatuses)[number];

/**
 * Reserves a message id for one submission with a conditional put: it succeeds only when the
 * id was never used, or when it is held by a reservation whose submission died (expired).
 * Returns false when the id is taken, whoever took it (any customer): ids are global.
 */
export const reserveMessage = async (table: MessageTable, item: SmsMessageItem, nowSeconds: number): Promise<boolean> =>
  sendUnlessConditionFails(
    table.db,
    new PutCommand({
      TableName: table.tableName,
      Item: { ...item, ...key.message(item.message_id), expires_at: nowSeconds + reservationSeconds },
      ConditionExpression: 'attribute_not_exists(PK) OR (#status = :reserved AND expires_at < :now)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':reserved': 'reserved', ':now': nowSeconds },
    }),
  );

/**
 * Deletes a reservation after its submission failed, so the caller may use the id again.
 * Conditional on the reservation still being this submission's and still `reserved`: if a
 * receipt already moved it (the provider accepted after all), it is kept.
 */
export const releaseReservation = async (table: MessageTable, messageId: string, reservationId: string): Promise<void> => {
  await sendUnlessConditionFails(
    table.db,
    new DeleteCommand({
      TableName: table.tableName,
      Key: key.message(messageId),
      ConditionExpression: 'reservation_id = :mine AND #status = :reserved',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':mine': reservationId, ':reserved': 'reserved' },
    }),
  );
};

/**
 * Confirms a reservation as `sent` once the provider accepted the message, and drops its
 * expiry; the provider's message id is stored and indexed (GSI1, gsi1.messageByProviderId), so
 * that delivery events and answers that name only it find the message. When a receipt got
 * there first (the message is already terminal) its state stays, and only the provider's id is
 * added.
 */
export const confirmSent = async (
  table: MessageTable,
  messageId: string,
  reservationId: string,
  providerMessageId: string | null,
): Promise<void> => {
  const index = providerMessageId ? gsi1.messageByProviderId(providerMessageId) : undefined;
  const setIndex = index ? ', GSI1PK = :gsi1pk, GSI1SK = :gsi1sk' : '';
  const indexValues = index ? { ':gsi1pk': index.GSI1PK, ':gsi1sk': index.GSI1SK } : {};
  const confirmed = await sendUnlessConditionFails(
    table.db,
    new UpdateCommand({
      TableName: table.tableName,
      Key: key.message(messageId),
      UpdateExpression: `SET #status = :sent, provider_message_id = :provider${setIndex} REMOVE expires_at`,
      ConditionExpression: 'reservation_id = :mine AND #status = :reserved',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':sent': 'sent', ':provider': providerMessageId, ':mine': reservationId, ':reserved': 'reserved', ...indexValues },
    }),
  );
  if (confirmed || !providerMessageId) return;
  await sendUnlessConditionFails(
    table.db,
    new UpdateCommand({
      TableName: table.tableName,
      Key: key.message(messageId),
      UpdateExpression: `SET provider_message_id = :provider${setIndex}`,
      ConditionExpression: 'reservation_id = :mine AND attribute_not_exists(provider_message_id)',
      ExpressionAttributeValues: { ':provider': providerMessageId, ':mine': reservationId, ...indexValues },
    }),
  );
};

/**
 * The sent message with this provider message id (one GSI1 query, gsi1.messageByProviderId),
 * or undefined: the id is set only once the network accepted the message.
 */
export const findMessageByProviderId = (table: MessageTable, providerMessageId: string): Promise<SmsMessageItem | undefined> =>
  itemAtGsi1Key<SmsMessageItem>(table, gsi1.messageByProviderId(providerMessageId), 'sms_message');

/** One delivery event to keep in a message's history, with the key that recognises it again. */
export interface HistoryEvent {
  /** Recognises a repeat of this event (type, timestamp, status). */
  key: string;
  entry: SmsDeliveryEvent;
}

/** What a delivery event did to its sent message. */
export type DeliveryEventOutcome =
  /** This final event moved the message to its terminal state (the one and only time). */
  | { outcome: 'recorded'; message: SmsMessageItem }
  /** Kept in the message's history only: an event that is not final. */
  | { outcome: 'history'; message: SmsMessageItem }
  /** A final event for a message already in a terminal state: kept in the history, the state never moves. */
  | { outcome: 'ignored'; message: SmsMessageItem }
  /** This very event was recorded before (a repeated delivery): nothing changed. */
  | { outcome: 'repeat' };

/** Appends to `events` and remembers the event's key, unless the key is there already. */
const historyUpdate = 'events = list_append(if_not_exists(events, :none), :event)';
const notSeen = '(attribute_not_exists(event_keys) OR NOT contains(event_keys, :key))';
const historyValues = (event: HistoryEvent) => ({ ':none': [], ':event': [event.entry], ':key': event.key, ':keys': new Set([event.key]) });

/**
 * Records a delivery event of AWS End User Messaging on its sent message: a final event
 * (`finalStatus` given) moves the message from sent (or still reserved, when it overtook the
 * submission's confirmation) to that state, with `received_at`, in one conditional update that
 * also keeps the event in the history, so exactly one final event per message wins and a
 * terminal state never moves again; any other event (not final, or final for a message already
 * terminal) is only appended to the history. An event seen before (its key in `event_keys`)
 * changes nothing. The message must exist (the caller found it).
 */
export const recordDeliveryEvent = async (
  table: MessageTable,
  messageId: string,
  event: HistoryEvent,
  finalStatus: TerminalStatus | undefined,
  receivedAt: string,
): Promise<DeliveryEventOutcome> => {
  if (finalStatus) {
    try {
      const moved = await table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: key.message(messageId),
          UpdateExpression: `SET #status = :status, received_at = :received, provider_occurred_at = :occurred, ${historyUpdate} ADD event_keys :keys REMOVE expires_at`,
          ConditionExpression: `attribute_exists(PK) AND #status IN (:sent, :reserved) AND ${notSeen}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ...historyValues(event),
            ':status': finalStatus,
            ':received': receivedAt,
            ':occurred': event.entry.occurred_at,
            ':sent': 'sent',
            ':reserved': 'reserved',
          },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return { outcome: 'recorded', message: moved.Attributes as SmsMessageItem };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  try {
    const kept = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key.message(messageId),
        UpdateExpression: `SET ${historyUpdate} ADD event_keys :keys`,
        ConditionExpression: `attribute_exists(PK) AND ${notSeen}`,
        ExpressionAttributeValues: historyValues(event),
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { outcome: finalStatus ? 'ignored' : 'history', message: kept.Attributes as SmsMessageItem };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  return { outcome: 'repeat' };
};

/** What a delivery receipt did to its message. */
export type ReceiptOutcome =
  /** This receipt moved the message to its terminal state (the one and only time). */
  | { outcome: 'recorded'; message: SmsMessageItem }
  /** The message was already in this state: a repeat, nothing changed. */
  | { outcome: 'repeat'; message: SmsMessageItem }
  /** The message is already in another terminal state, which never moves: nothing changed. */
  | { outcome: 'ignored'; message: SmsMessageItem }
  /** No message has this id. */
  | { outcome: 'unknown_reference' };

/**
 * Applies a delivery receipt with one conditional update (status is sent, or still reserved
 * when the receipt overtook the submission's confirmation), so that exactly one receipt per
 * message wins, a terminal state never moves again and an out-of-order report never
 * regresses it. A losing receipt reads the message to say why it lost.
 */
export const applyReceipt = async (
  table: MessageTable,
  messageId: string,
  status: TerminalStatus,
  receivedAt: string,
  occurredAt: string | null,
): Promise<ReceiptOutcome> => {
  const recorded = await updatedUnlessConditionFails<SmsMessageItem>(table, {
    Key: key.message(messageId),
    UpdateExpression: 'SET #status = :status, received_at = :received, provider_occurred_at = :occurred REMOVE expires_at',
    ConditionExpression: 'attribute_exists(PK) AND #status IN (:sent, :reserved)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':status': status, ':received': receivedAt, ':occurred': occurredAt, ':sent': 'sent', ':reserved': 'reserved' },
  });
  if (recorded) return { outcome: 'recorded', message: recorded };
  const current = await getMessage(table, messageId);
  if (!current) return { outcome: 'unknown_reference' };
  return { outcome: current.status === status ? 'repeat' : 'ignored', message: current };
};

/** One sent message by id (strongly consistent), or undefined (also for a received one). */
export const getMessage = async (table: MessageTable, messageId: string): Promise<SmsMessageItem | undefined> => {
  const found = await getAnyMessage(table, messageId);
  return found?.type === 'sms_message' ? found : undefined;
};

/** One message by id, sent (`sms_message`) or received (`sms_inbound`), strongly consistent, or undefined. */
export const getAnyMessage = async (table: MessageTable, messageId: string): Promise<SmsMessageItem | SmsInboundItem | undefined> => {
  const result = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: key.message(messageId), ConsistentRead: true }),
  );
  return result.Item as SmsMessageItem | SmsInboundItem | undefined;
};

/** True for a status a message can be reported in (not an in-flight reservation). */
export const isVisibleStatus = (status: SmsMessageStatus): boolean => status !== 'reserved';
