import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { parseAllowedHosts } from '../callbacks/allowed-hosts';
import type { FunctionConfig } from '../config/function-config';
import { getSecret } from '../config/secrets';
import { documentClient } from '../db/client';
import { sqsConsumer } from '../queues/consumer';
import { sqsClient } from '../queues/sqs-client';
import { queueDefinition } from '../topology/queues';
import { deliverJob, type DeliverJobDeps, type DeliveryAttempt } from '../webhooks/deliver-job';
import { parseDeliveryJob } from '../webhooks/delivery-queue';

/** What the deliver-webhook consumer needs: delivering a job's, and the queue whose messages it hides for retries. */
export interface DeliveryConsumerDeps extends DeliverJobDeps {
  sqs: SQSClient;
  /** The webhook-deliveries queue (its messages' visibility is changed to schedule retries). */
  queueUrl: string;
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

/**
 * A receive of a job's message as an attempt: ApproximateReceiveCount is the attempt number
 * (the message and its webhook-id never change), and a retry hides the message for the wait
 * (SQS ChangeMessageVisibility, at most 12 h).
 */
const attemptOf = (deps: DeliveryConsumerDeps, record: SQSRecord): DeliveryAttempt => ({
  number: Math.max(1, Number(record.attributes?.ApproximateReceiveCount ?? 1)),
  retryAfter: async (seconds) => {
    await deps.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: deps.queueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: seconds }));
  },
});

/**
 * Consumer of the webhook-deliveries queue (issue #15, point 4): one message is one event for
 * one subscription (shared/webhooks/deliver-job.ts). Each receive is one attempt. A failed
 * attempt is recorded, the message is hidden for the schedule's next wait
 * (ChangeMessageVisibility) and reported as a batch item failure, logged at WARN with its
 * attempt number; after the last attempt (the queue's maxReceiveCount) it goes to the
 * dead-letter queue, is logged at ERROR and counts as a failed event for the subscription's
 * `failing` status.
 */
export const deliverWebhookConsumer = (deps: DeliveryConsumerDeps) =>
  sqsConsumer('deliver-webhook', async (record) => deliverJob(deps, parseDeliveryJob(record.body), attemptOf(deps, record)));
