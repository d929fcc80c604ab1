import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { AdminError } from '../auth/admin';
import { isConditionFailure, isTransactionCanceled } from '../db/conditions';
import type { OrderItem } from '../db/items';
import { key } from '../db/keys';
import type { FulfilmentMessage } from './message';

/** The table an operator acts on. */
export interface ManualActionDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => Date;
}

const readOrder = async (deps: ManualActionDeps, orderId: string): Promise<OrderItem> => {
  const order = (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key.order(orderId), ConsistentRead: true }))).Item as
    | OrderItem
    | undefined;
  if (!order) throw new AdminError(`no order ${orderId}`);
  return order;
};

/**
 * The payment event that makes fulfil-order work on `order` again, as the webhook would have
 * queued it (an event id of its own, marked manual): fulfil-order finds the order `paid` and
 * fulfils it, each effect recorded `done` staying untouched.
 */
const replayedPayment = (order: OrderItem, now: Date, why: string): FulfilmentMessage => {
  if (!order.payment_intent_id) throw new AdminError(`order ${order.id} has no payment intent id`);
  return {
    event_id: `evt_manual_${why}_${now.getTime()}`,
    type: 'payment_intent.succeeded',
    created: Math.floor(now.getTime() / 1000),
    order_id: order.id,
    payment_intent_id: order.payment_intent_id,
    amount: order.amount_total_pence,
    currency: order.currency.toLowerCase(),
  };
};

/**
 * Prepares the resend of a fulfilment message whose outcome is unknown (docs/operations.md,
 * effect-outcome-unknown): in one transaction, removes the effect's `unknown` record (only if
 * it is still `unknown`) and moves the order from `fulfilled` (or `paid`) back to `paid`.
 * Returns the payment event to put on the fulfilment queue, on which fulfil-order sends that
 * one message and marks the order `fulfilled` again. Refused (AdminError) for an unknown
 * order, or an effect that is not `unknown`.
 */
export const prepareEffectResend = async (deps: ManualActionDeps, orderId: string, effect: string): Promise<FulfilmentMessage> => {
  const order = await readOrder(deps, orderId);
  const now = deps.now();
  try {
    await deps.db.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: deps.tableName,
              Key: key.fulfilmentEffect(orderId, effect),
              ConditionExpression: '#status = :unknown',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':unknown': 'unknown' },
            },
          },
          {
            Update: {
              TableName: deps.tableName,
              Key: key.order(orderId),
              UpdateExpression: 'SET #status = :paid, updated_at = :now, resend_requested_at = :now',
              ConditionExpression: '#status IN (:fulfilled, :paid)',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':paid': 'paid', ':fulfilled': 'fulfilled', ':now': now.toISOString() },
            },
          },
        ],
      }),
    );
  } catch (error) {
    if (!isTransactionCanceled(error)) throw error;
    const current = (await deps.db.send(new GetCommand({ TableName: deps.tableName, Key: key.fulfilmentEffect(orderId, effect), ConsistentRead: true })))
      .Item as { status?: string } | undefined;
    if (current?.status !== 'unknown') throw new AdminError(`effect ${effect} of order ${orderId} is ${current?.status ?? 'not recorded'}, not unknown`);
    throw new AdminError(`order ${orderId} is ${order.status}, not fulfilled or paid`);
  }
  return replayedPayment(order, now, 'resend');
};

/**
 * Releases an order a person reviewed (docs/operations.md, order-flagged-for-review): moves it
 * from `review_required` to `paid` (recording `reviewed_at`; `review_reason` is kept) and
 * returns the payment event on which fulfil-order provisions it. Refused for an order that is
 * not `review_required`.
 */
export const prepareReviewedOrder = async (deps: ManualActionDeps, orderId: string): Promise<FulfilmentMessage> => {
  const order = await readOrder(deps, orderId);
  const now = deps.now();
  try {
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key.order(orderId),
        UpdateExpression: 'SET #status = :paid, updated_at = :now, reviewed_at = :now',
        ConditionExpression: '#status = :review',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':paid': 'paid', ':review': 'review_required', ':now': now.toISOString() },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw new AdminError(`order ${orderId} is ${order.status}, not review_required`);
  }
  return replayedPayment(order, now, 'review');
};
