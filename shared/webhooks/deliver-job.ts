import type { WebhookSubscriptionItem } from '../db/items';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { RetryScheduled } from '../queues/consumer';
import { deliverEvent, type DeliverySettings } from './deliver';
import { recordDeliveryAttempt } from './deliveries';
import type { DeliveryJob } from './delivery-queue';
import { retryDelaySeconds } from '../queues/retry-schedule';
import { openSecret } from './secret-box';
import { countFailedEvent, markHealthy, type SubscriptionHealthDeps } from './subscription-health';
import { readSubscription, retiredSecretsOf } from './subscriptions';

/** What delivering a job needs: the table, the retry schedule and attempts, the secrets key and a clock. */
export interface DeliverJobDeps extends DeliverySettings, SubscriptionHealthDeps {
  /** Waits between attempts (WEBHOOK_RETRY_SCHEDULE_SECONDS). */
  retrySchedule: number[];
  /** Attempts per event: the queue's maxReceiveCount (after it, the dead-letter queue). */
  maxAttempts: number;
  /** WEBHOOK_SECRETS_KEY (read per message: secrets are cached, not configuration). */
  secretsKey: () => Promise<string | undefined>;
  now: () => number;
}

/** One attempt at a job: its number (from 1), and how to have the job come back after a wait. */
export interface DeliveryAttempt {
  number: number;
  /** The job is tried again after `seconds` (0: at once, which past the last attempt dead-letters it). */
  retryAfter: (seconds: number) => Promise<void>;
}

/** The secrets that sign now: the current one, and the up to 3 most recently retired during their 24 hours. */
export const signingSecrets = (keyMaterial: string, subscription: WebhookSubscriptionItem, nowMs: number): string[] => [
  openSecret(keyMaterial, subscription.id, subscription.secret_sealed),
  ...retiredSecretsOf(subscription, nowMs).map((retired) => openSecret(keyMaterial, subscription.id, retired.sealed)),
];

/** Why a job's message is left on the queue: it is tried again (or dead-lettered) by SQS. */
export class DeliveryFailed extends Error {
  override name = 'DeliveryFailed';
}

/**
 * Delivers one job (issue #15, point 4): one event for one subscription, attempt
 * `current.number`. A failed attempt is recorded and the job comes back after the schedule's
 * next wait, logged at WARN with its attempt number (RetryScheduled); after the last attempt it
 * is logged at ERROR, counts as a failed event for the subscription's `failing` status and is
 * dead-lettered (DeliveryFailed). Resolves when nothing more is to be done with the job.
 */
export const deliverJob = async (deps: DeliverJobDeps, job: DeliveryJob, current: DeliveryAttempt): Promise<void> => {
  const attempt = current.number;
  const subscription = await readSubscription(deps, job.customer_id, job.subscription_id, true);
  const log = { event_id: job.event.id, type: job.event.type, subscription_id: job.subscription_id, attempt };
  if (!subscription) {
    logger.info('webhook subscription gone; event dropped', log);
    return;
  }
  const keyMaterial = await deps.secretsKey();
  if (!keyMaterial) throw new Error('WEBHOOK_SECRETS_KEY is not configured');
  const nowMs = deps.now();
  const outcome = await deliverEvent(subscription.url, job.event, signingSecrets(keyMaterial, subscription, nowMs), deps, nowMs);
  const last = attempt >= deps.maxAttempts;
  const delay = outcome.delivered || last ? undefined : retryDelaySeconds(deps.retrySchedule, attempt);
  await recordDeliveryAttempt(deps, {
    customerId: job.customer_id,
    subscriptionId: job.subscription_id,
    eventId: job.event.id,
    eventType: job.event.type,
    attempt,
    outcome: outcome.delivered ? 'delivered' : 'failed',
    httpStatus: outcome.httpStatus,
    error: outcome.delivered ? undefined : outcome.error,
    attemptedAtMs: nowMs,
    nextAttemptAtMs: delay === undefined ? undefined : nowMs + delay * 1000,
  });
  if (outcome.delivered) {
    recordMetric('WebhookDeliveries', { outcome: 'delivered' });
    logger.info('webhook delivered', { ...log, http_status: outcome.httpStatus });
    await markHealthy(deps, subscription);
    return;
  }
  recordMetric('WebhookDeliveries', { outcome: 'failed' });
  const failure = { ...log, error: outcome.error, http_status: outcome.httpStatus };
  if (last) {
    // The attempts are spent: ERROR (the alarms and a reader of the logs look for these).
    logger.error('webhook delivery failed; attempts spent', failure);
    await countFailedEvent(deps, subscription, new Date(nowMs).toISOString());
    // Seen again at once, past maxReceiveCount: SQS moves it to the dead-letter queue.
    await current.retryAfter(0);
    throw new DeliveryFailed(`event ${job.event.id} not delivered after ${attempt} attempts: dead-lettered`);
  }
  // A retry is scheduled: expected, so WARN with the attempt number.
  logger.warn('webhook delivery failed; retry scheduled', { ...failure, next_attempt_in_seconds: delay });
  await current.retryAfter(delay!);
  throw new RetryScheduled(`event ${job.event.id} attempt ${attempt} failed; next in ${delay} s`);
};
