import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, sendUnlessConditionFails } from '../db/conditions';
import { key } from '../db/keys';
import type { SmsMessageItem, SmsMessageStatus } from '../db/items';

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
 * expiry. When a receipt got there first (the message is already terminal) nothing changes.
 */
export const confirmSent = async (
  table: MessageTable,
  messageId: string,
  reservationId: string,
  providerMessageId: string | null,
): Promise<void> => {
  await sendUnlessConditionFails(
    table.db,
    new UpdateCommand({
      TableName: table.tableName,
      Key: key.message(messageId),
      UpdateExpression: 'SET #status = :sent, provider_message_id = :provider REMOVE expires_at',
      ConditionExpression: 'reservation_id = :mine AND #status = :reserved',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':sent': 'sent', ':provider': providerMessageId, ':mine': reservationId, ':reserved': 'reserved' },
    }),
  );
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
  try {
    const updated = await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: key.message(messageId),
        UpdateExpression: 'SET #status = :status, received_at = :received, provider_occurred_at = :occurred REMOVE expires_at',
        ConditionExpression: 'attribute_exists(PK) AND #status IN (:sent, :reserved)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': status,
          ':received': receivedAt,
          ':occurred': occurredAt,
          ':sent': 'sent',
          ':reserved': 'reserved',
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { outcome: 'recorded', message: updated.Attributes as SmsMessageItem };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const current = await getMessage(table, messageId);
  if (!current) return { outcome: 'unknown_reference' };
  return { outcome: current.status === status ? 'repeat' : 'ignored', message: current };
};

/** One message by id (strongly consistent), or undefined. */
export const getMessage = async (table: MessageTable, messageId: string): Promise<SmsMessageItem | undefined> => {
  const result = await table.db.send(
    new GetCommand({ TableName: table.tableName, Key: key.message(messageId), ConsistentRead: true }),
  );
  return result.Item as SmsMessageItem | undefined;
};

/** True for a status a message can be reported in (not an in-flight reservation). */
export const isVisibleStatus = (status: SmsMessageStatus): boolean => status !== 'reserved';
