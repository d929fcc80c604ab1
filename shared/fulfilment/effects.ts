import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FulfilmentEffectItem, FulfilmentEffectStatus, OrderItem } from '../db/items';
import { key } from '../db/keys';
import type { FulfilmentDeps } from './deps';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { errorSummary } from '../observability/error-summary';

/** The fulfilment of one order by the worker that holds its lease. */
export interface FulfilmentRun {
  deps: FulfilmentDeps;
  order: OrderItem;
  /** The order's effect records, by effect name, as read after the lease was taken. */
  effects: Map<string, FulfilmentEffectItem>;
  /** The lease token; it also marks this worker's claims. */
  token: string;
}

/** What a failed send means for the message it tried to send. */
export type SendFailure =
  /** Certainly not sent and worth retrying: the claim is released and the queue message retried. */
  | 'not_sent'
  /** Certainly not sent, and retrying cannot help (not configured, refused): recorded `failed`. */
  | 'failed'
  /** Maybe sent: recorded `unknown` and never repeated. */
  | 'unknown';

/** One message effect: how to send it and how to read its failures. */
export interface MessageEffect {
  name: string;
  /** Sends the message; resolves with what to record (a provider message id, a file). */
  send: () => Promise<Record<string, unknown>>;
  classify: (error: unknown) => SendFailure;
  /**
   * Whether the message was sent, for an adapter that can tell (the local outbox): what to
   * record when it was, `false` when it was not, undefined when it cannot tell (SES, SNS, SMS).
   * Asked only about a claim whose worker stopped before recording the outcome.
   */
  findSent?: () => Promise<Record<string, unknown> | false | undefined>;
}

const effectItem = (run: FulfilmentRun, name: string, status: FulfilmentEffectStatus, detail?: Record<string, unknown>): FulfilmentEffectItem => {
  const now = run.deps.now().toISOString();
  return {
    ...key.fulfilmentEffect(run.order.id, name),
    type: 'fulfilment_effect',
    order_id: run.order.id,
    effect: name,
    status,
    claim: run.token,
    claimed_at: now,
    ...(status !== 'pending' ? { completed_at: now } : {}),
    ...(detail ? { detail } : {}),
  };
};

const setStatus = async (run: FulfilmentRun, name: string, status: FulfilmentEffectStatus, detail: Record<string, unknown>) => {
  await run.deps.db.send(
    new UpdateCommand({
      TableName: run.deps.tableName,
      Key: key.fulfilmentEffect(run.order.id, name),
      UpdateExpression: 'SET #status = :status, completed_at = :now, detail = :detail',
      ConditionExpression: '#status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': status, ':now': run.deps.now().toISOString(), ':detail': detail, ':pending': 'pending' },
    }),
  );
  const existing = run.effects.get(name);
  if (existing) run.effects.set(name, { ...existing, status, detail });
};

/**
 * Runs a database effect whose writes are conditional, so that running it again is harmless
 * (at least once, with the same outcome): skipped when recorded `done`, else performed and
 * then recorded `done` with what it returned. A worker that dies between the two simply
 * performs it again.
 */
export const runDatabaseEffect = async <Detail extends Record<string, unknown>>(
  run: FulfilmentRun,
  name: string,
  perform: () => Promise<Detail>,
): Promise<Detail> => {
  const existing = run.effects.get(name);
  if (existing?.status === 'done') return existing.detail as Detail;
  const detail = await perform();
  const item = effectItem(run, name, 'done', detail);
  await run.deps.db.send(new PutCommand({ TableName: run.deps.tableName, Item: item }));
  run.effects.set(name, item);
  await run.deps.faults?.afterEffect?.(name);
  return detail;
};

/** effect.findSent, with a failure to tell read as "cannot tell" (logged). */
const findSentSafely = async (effect: MessageEffect, orderId: string): Promise<Record<string, unknown> | false | undefined> => {
  try {
    return await effect.findSent?.();
  } catch (error) {
    logger.warn('could not tell whether a fulfilment message was sent', { order_id: orderId, effect: effect.name, error: error });
    return undefined;
  }
};

/**
 * Sends a message at most once: the effect is claimed (`pending`, a conditional put) before
 * the message is handed over and recorded `done` after. A later worker that finds the claim
 * still `pending` knows its claimer died (it holds the order's lease, which outlives any
 * worker) somewhere between claiming and recording, so the message may or may not have left:
 * it records `unknown`, logs an error naming the order and the effect, and does not send it
 * again. A send that certainly failed releases the claim and rethrows (`not_sent`: the queue
 * message is retried) or records `failed` (retrying cannot help). Where the adapter can tell
 * whether the message left (`findSent`: the local outbox), a stopped worker's claim is
 * settled instead: recorded `done` when it was sent, taken over and sent when it was not.
 * Resolves with the effect's final status.
 */
export const runMessageEffect = async (run: FulfilmentRun, effect: MessageEffect): Promise<FulfilmentEffectStatus> => {
  const { deps, order } = run;
  const existing = run.effects.get(effect.name);
  if (existing && existing.status !== 'pending') return existing.status;
  if (existing) {
    const found = await findSentSafely(effect, order.id);
    if (found) {
      await setStatus(run, effect.name, 'done', { ...found, settled: 'sent by a worker that stopped before recording it' });
      logger.info('fulfilment message found sent: recorded', { order_id: order.id, effect: effect.name, claimed_at: existing.claimed_at });
      return 'done';
    }
    if (found === undefined) {
      await setStatus(run, effect.name, 'unknown', { reason: 'claimed by a worker that stopped before recording the outcome' });
      logger.error('fulfilment message outcome unknown: not sent again', {
        order_id: order.id,
        effect: effect.name,
        claimed_at: existing.claimed_at,
      });
      recordMetric('EffectsUnknown');
      return 'unknown';
    }
    // Certainly not sent: the claim passes to this worker, which sends it.
    const now = deps.now().toISOString();
    await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: key.fulfilmentEffect(order.id, effect.name),
        UpdateExpression: 'SET claim = :token, claimed_at = :now',
        ConditionExpression: '#status = :pending AND claim = :previous',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':token': run.token, ':now': now, ':pending': 'pending', ':previous': existing.claim },
      }),
    );
    run.effects.set(effect.name, { ...existing, claim: run.token, claimed_at: now });
    logger.warn('fulfilment message claimed by a stopped worker was not sent: sending it', { order_id: order.id, effect: effect.name });
  } else {
    const claim = effectItem(run, effect.name, 'pending');
    await deps.db.send(new PutCommand({ TableName: deps.tableName, Item: claim, ConditionExpression: 'attribute_not_exists(PK)' }));
    run.effects.set(effect.name, claim);
  }

  let detail: Record<string, unknown>;
  try {
    detail = await effect.send();
  } catch (error) {
    const failure = effect.classify(error);
    if (failure === 'not_sent') {
      await deps.db.send(
        new DeleteCommand({
          TableName: deps.tableName,
          Key: key.fulfilmentEffect(order.id, effect.name),
          ConditionExpression: 'claim = :token',
          ExpressionAttributeValues: { ':token': run.token },
        }),
      );
      run.effects.delete(effect.name);
      throw error;
    }
    await setStatus(run, effect.name, failure, { error: errorSummary(error) });
    logger.error(failure === 'failed' ? 'fulfilment message not sent' : 'fulfilment message outcome unknown: not sent again', {
      order_id: order.id,
      effect: effect.name,
      error,
    });
    if (failure === 'unknown') recordMetric('EffectsUnknown');
    return failure;
  }
  await deps.faults?.afterSend?.(effect.name);
  await setStatus(run, effect.name, 'done', detail);
  logger.info('fulfilment message sent', { order_id: order.id, effect: effect.name });
  await deps.faults?.afterEffect?.(effect.name);
  return 'done';
};
