import { releaseStock } from '../checkout/stock-holds';
import { getOrder } from '../checkout/orders';
import type { OrderItem, OrderStatus } from '../db/items';
import type { FulfilmentDeps } from './deps';
import { fulfilPaidOrder } from './fulfil';
import { acquireOrderLease, releaseOrderLease } from './lease';
import { appendLogKeys } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import type { FulfilmentMessage } from './message';
import { loadOrderWithEffects, moveOrder } from './orders';

/** What processing one payment event did. */
export type ProcessOutcome =
  | 'fulfilled'
  | 'already_fulfilled'
  | 'review_required'
  | 'payment_failed'
  | 'cancelled'
  | 'ignored'
  | 'unknown_order';

/** States from which a payment success is taken: a failed attempt can be followed by a successful one. */
const payableStates: OrderStatus[] = ['pending', 'payment_failed', 'failed'];

/** Why a success event does not match its order (amount, currency, intent), or undefined when it does. */
export const paymentMismatch = (order: OrderItem, message: FulfilmentMessage): string | undefined => {
  if (message.currency.toLowerCase() !== order.currency.toLowerCase()) {
    return `currency ${JSON.stringify(message.currency)} differs from the order's ${order.currency.toLowerCase()}`;
  }
  if (message.amount !== order.amount_total_pence) {
    return `amount ${message.amount} differs from the order's amount_total_pence ${order.amount_total_pence}`;
  }
  if (order.payment_intent_id && order.payment_intent_id !== message.payment_intent_id) {
    return `payment intent ${message.payment_intent_id} is not the order's ${order.payment_intent_id}`;
  }
  return undefined;
};

/** Marks an unpaid order failed or cancelled and returns its held stock at once (checkout's releaseStock). */
const closeUnpaidOrder = async (
  deps: FulfilmentDeps,
  order: OrderItem,
  message: FulfilmentMessage,
  target: 'payment_failed' | 'cancelled',
): Promise<ProcessOutcome> => {
  const from: OrderStatus[] = target === 'payment_failed' ? ['pending'] : ['pending', 'payment_failed', 'failed'];
  if (order.status !== target && !from.includes(order.status)) {
    (order.status === 'pending' ? logger.info : logger.warn)('payment event ignored: the order has moved on', {
      order_id: order.id,
      event_id: message.event_id,
      type: message.type,
      status: order.status,
    });
    return 'ignored';
  }
  // Holds first, status last: the status is the sign that everything is done, and a worker
  // that dies in between leaves a `pending` order whose redelivery releases (again) and moves it.
  await releaseStock({ db: deps.db, tableName: deps.tableName }, order.id, order.held_units ?? []);
  if (order.status !== target) {
    await moveOrder(deps, order.id, from, target, { failure_reason: target === 'payment_failed' ? 'payment_failed' : 'payment_cancelled' });
  }
  logger.info('order closed unpaid; its stock holds are released', { order_id: order.id, status: target, units: (order.held_units ?? []).length });
  return target;
};

/** Takes a payment success: checks it against the order, marks the order paid, fulfils it. */
const takePayment = async (deps: FulfilmentDeps, orderId: string, message: FulfilmentMessage, token: string): Promise<ProcessOutcome> => {
  const loaded = await loadOrderWithEffects(deps, orderId);
  if (!loaded) return 'unknown_order';
  let { order } = loaded;
  if (order.status === 'fulfilled') return 'already_fulfilled';
  if (order.status === 'review_required') {
    logger.warn('payment event ignored: the order awaits review', { order_id: orderId, event_id: message.event_id, reason: order.review_reason });
    return 'ignored';
  }
  if (order.status !== 'paid') {
    const mismatch =
      order.status === 'cancelled' ? 'payment succeeded for an order whose payment was cancelled' : paymentMismatch(order, message);
    if (mismatch) {
      await moveOrder(deps, orderId, [order.status], 'review_required', { review_reason: mismatch });
      logger.error('payment does not match its order: flagged for review, nothing provisioned', {
        order_id: orderId,
        event_id: message.event_id,
        payment_intent_id: message.payment_intent_id,
        reason: mismatch,
      });
      recordMetric('OrdersFlaggedForReview');
      return 'review_required';
    }
    const paidAt = deps.now().toISOString();
    if (!(await moveOrder(deps, orderId, payableStates, 'paid', { paid_at: paidAt, payment_intent_id: message.payment_intent_id }))) {
      throw new Error(`order ${orderId} changed state while its lease was held`);
    }
    order = { ...order, status: 'paid', paid_at: paidAt, payment_intent_id: message.payment_intent_id };
  }
  const outcome = await fulfilPaidOrder({ deps, order, effects: loaded.effects, token });
  if (outcome.status === 'review_required') {
    logger.error('paid order flagged for review', { order_id: orderId, reason: outcome.reason });
    recordMetric('OrdersFlaggedForReview');
    return 'review_required';
  }
  recordMetric('FulfilmentsCompleted');
  return 'fulfilled';
};

/**
 * Processes one payment event from the fulfilment queue (docs/fulfilment.md). The order is
 * worked on by one worker at a time (its lease). A success is checked against the order
 * (amount in pence, currency, payment intent; a mismatch flags the order `review_required`
 * and provisions nothing), moves it to `paid` and fulfils it, each effect exactly once; a
 * failure or cancellation marks it `payment_failed` / `cancelled` and returns its holds to
 * stock. Redelivered, replayed and late events change nothing that is done. Throws when the
 * message should come back (a retryable failure, or the order busy for too long).
 */
export const processPaymentMessage = async (deps: FulfilmentDeps, message: FulfilmentMessage): Promise<ProcessOutcome> => {
  const orderId = message.order_id;
  const glance = await getOrder({ db: deps.db, tableName: deps.tableName }, orderId);
  if (!glance) {
    logger.warn('payment event for an unknown order ignored', { order_id: orderId, event_id: message.event_id, type: message.type });
    return 'unknown_order';
  }
  if (glance.correlation_id) appendLogKeys({ origin_correlation_id: glance.correlation_id });
  if (glance.status === 'fulfilled' && message.type === 'payment_intent.succeeded') return 'already_fulfilled';

  const token = await acquireOrderLease(deps, orderId);
  try {
    if (message.type === 'payment_intent.succeeded') return await takePayment(deps, orderId, message, token);
    const current = await getOrder({ db: deps.db, tableName: deps.tableName }, orderId);
    if (!current) return 'unknown_order';
    return await closeUnpaidOrder(deps, current, message, message.type === 'payment_intent.payment_failed' ? 'payment_failed' : 'cancelled');
  } finally {
    await releaseOrderLease(deps, orderId, token);
  }
};
