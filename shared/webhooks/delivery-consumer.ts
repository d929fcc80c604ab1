import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import { parseAllowedHosts } from '../callbacks/allowed-hosts';
import type { FunctionConfig } from '../config/function-config';
import { getSecret } from '../config/secrets';
import { documentClient } from '../db/client';
import type { WebhookSubscriptionItem } from '../db/items';
import { key } from '../db/keys';
import { RetryScheduled, sqsConsumer } from '../queues/consumer';
import { queueDefinition } from '../topology/queues';
import { deliverEvent, type DeliverySettings } from './deliver';
import { recordDeliveryAttempt } from './deliveries';
import { parseDeliveryJob, type DeliveryJob } from './delivery-queue';
import { retryDelaySeconds } from './retry-schedule';
import { openSecret } from './secret-box';
import { readSubscription, retiredSecretsOf } from './subscriptions';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { sqsClient } from '../queues/sqs-client';
import { isConditionFailure, sendUnlessConditionFails } from '../db/conditions';

/** What the deliver-webhook consumer needs. */
export interface DeliveryConsumerDeps extends DeliverySettings {
  db: DynamoDBDocumentClient;
  tableName: string;
  sqs: SQSClient;
  /** The webhook-deliveries queue (its messages' visibility is changed to schedule retries). */
  queueUrl: string;
  /** Waits between attempts (WEBHOOK_RETRY_SCHEDULE_SECONDS). */
  retrySchedule: number[];
  /** Attempts per event: the queue's maxReceiveCount (after it, the dead-letter queue). */
  maxAttempts: number;
  /** Events in a row that exhausted their retries before a subscription is marked `failing`. */
  failingAfterEvents: number;
  /** WEBHOOK_SECRETS_KEY (read per message: secrets are cached, not configuration). */
  secretsKey: () => Promise<string | undefined>;
  now: () => number;
}

/** The deps of the deliver-webhook function, from its configuration (read once at init). */
export const deliveryConsumerDeps = (config: FunctionConfig<'deliver-webhook'>): DeliveryConsumerDeps => ({
  db: documentClient(config),
  tableName: config.tableName,
  sqs: sqsClient(config),
  queueUrl: config.deliveryQueueUrl,
  retrySchedule: config.retrySchedule,
  maxAttempts: queueDefinition('webhook-deliveries').maxReceiveCount,
  failingAfterEvents: config.failingAfterEvents,
  secretsKey: () => getSecret('WEBHOOK_SECRETS_KEY'),
  allowedHosts: parseAllowedHosts(config.allowedCallbackHosts),
  connectTimeoutMs: config.connectTimeoutMs,
  totalTimeoutMs: config.totalTimeoutMs,
  extraCaCertificates: config.extraCaCertificates,
  now: Date.now,
});

/** The secrets that sign now: the current one, and the up to 3 most recently retired during their 24 hours. */
export const signingSecrets = (keyMaterial: string, subscription: WebhookSubscriptionItem, nowMs: number): string[] => [
  openSecret(keyMaterial, subscription.id, subscription.secret_sealed),
  ...retiredSecretsOf(subscription, nowMs).map((retired) => openSecret(keyMaterial, subscription.id, retired.sealed)),
];

/** A delivered event: the subscription's run of failed events ends and it is `active` again. */
const markHealthy = async (deps: DeliveryConsumerDeps, subscription: WebhookSubscriptionItem): Promise<void> => {
  if (subscription.failed_events_in_a_row === 0 && subscription.status === 'active') return;
  await sendUnlessConditionFails(
    deps.db,
    new UpdateCommand({
      TableName: deps.tableName,
      Key: key.webhookSubscription(subscription.customer_id, subscription.id),
      UpdateExpression: 'SET failed_events_in_a_row = :zero, #status = :active REMOVE failing_since',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':zero': 0, ':active': 'active' },
    }),
  );
};

/** An event that exhausted its attempts: counted, and at `failingAfterEvents` in a row the subscription is `failing`. */
const countFailedEvent = async (deps: DeliveryConsumerDeps, subscription: WebhookSubscriptionItem, nowIso: string): Promise<void> => {
  const subscriptionKey = key.webhookSubscription(subscription.customer_id, subscription.id);
  try {
    const counted = await deps.db.send(
      new UpdateCommand({
        TableName: deps.tableName,
        Key: subscriptionKey,
        UpdateExpression: 'ADD failed_events_in_a_row :one',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const after = counted.Attributes as WebhookSubscriptionItem;
    if (after.failed_events_in_a_row >= deps.failingAfterEvents && after.status !== 'failing') {
      await deps.db.send(
        new UpdateCommand({
          TableName: deps.tableName,
          Key: subscriptionKey,
          UpdateExpression: 'SET #status = :failing, failing_since = :now',
          ConditionExpression: 'attribute_exists(PK) AND #status <> :failing',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':failing': 'failing', ':now': nowIso },
        }),
      );
    }
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/** A failed attempt's message comes back after `seconds` (SQS ChangeMessageVisibility, at most 12 h). */
const retryAfter = async (deps: DeliveryConsumerDeps, record: SQSRecord, seconds: number): Promise<void> => {
  await deps.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: deps.queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: seconds }));
};

/** Why a message is left on the queue: it is tried again (or dead-lettered) by SQS. */
export class DeliveryFailed extends Error {
  override name = 'DeliveryFailed';
}

/** Delivers one job; resolves when nothing more is to be done with its message, throws to leave it on the queue. */
const deliverJob = async (deps: DeliveryConsumerDeps, job: DeliveryJob, record: SQSRecord): Promise<void> => {
  const attempt = Math.max(1, Number(record.attributes?.ApproximateReceiveCount ?? 1));
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
    await retryAfter(deps, record, 0);
    throw new DeliveryFailed(`event ${job.event.id} not delivered after ${attempt} attempts: dead-lettered`);
  }
  // A retry is scheduled: expected, so WARN with the attempt number.
  logger.warn('webhook delivery failed; retry scheduled', { ...failure, next_attempt_in_seconds: delay });
  await retryAfter(deps, record, delay!);
  throw new RetryScheduled(`event ${job.event.id} attempt ${attempt} failed; next in ${delay} s`);
};

/**
 * Consumer of the webhook-deliveries queue (issue #15, point 4): one message is one event for
 * one subscription. Each receive is one attempt (ApproximateReceiveCount is the attempt
 * number; the message and its webhook-id never change). A failed attempt is recorded, the
 * message is hidden for the schedule's next wait (ChangeMessageVisibility) and reported as a
 * batch item failure, logged at WARN with its attempt number; after the last attempt (the
 * queue's maxReceiveCount) it goes to the dead-letter queue, is logged at ERROR and counts as
 * a failed event for the subscription's `failing` status.
 */
export const deliverWebhookConsumer = (deps: DeliveryConsumerDeps) =>
  sqsConsumer('deliver-webhook', async (record) => deliverJob(deps, parseDeliveryJob(record.body), record));
