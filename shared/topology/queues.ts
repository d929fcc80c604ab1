/**
 * The service's SQS queues as plain data, read by the CDK stack and the local runtime alike,
 * so both have the same queues, dead-letter queues, receive counts and consumers. It sits
 * beside the route table (./routes.ts) for the same reason: data every layer reads, under
 * no layer's folder.
 */
import type { QueueName, RouteAccess } from './routes';

/** One work queue with its dead-letter queue and its consumer function. */
export interface QueueDefinition {
  name: QueueName;
  /** Environment variable through which producers learn the queue URL. */
  urlVariable: string;
  /** The consumer: function name and handler module (exports `handler`). */
  consumer: { name: string; handler: string };
  /** The consumer's Lambda timeout; the visibility timeout is six times it. */
  consumerTimeoutSeconds: number;
  /** Receives before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  /** Messages per consumer invocation. */
  batchSize: number;
  /** What the consumer may touch. */
  access: RouteAccess;
  /**
   * The consumer schedules its own retries (ChangeMessageVisibility before it reports a
   * failure), so the local pollers leave a failed message's visibility alone.
   */
  consumerSchedulesRetries?: boolean;
  /**
   * Messages come from outside the service (the operator's systems): the queue's policy lets
   * only the principal given at deploy send (`-c feedPrincipalArn=...`), and denies every other.
   */
  sentByDeployPrincipal?: boolean;
  /** The age of its oldest message that raises an alarm (default alarmThresholds.oldestMessageSeconds). */
  oldestMessageAlarmSeconds?: number;
}

/** Visibility timeout of a queue: six times its consumer's timeout (AWS's guidance). */
export const visibilityTimeoutSeconds = (queue: QueueDefinition): number => queue.consumerTimeoutSeconds * 6;

/** Name of a queue's dead-letter queue. */
export const deadLetterQueueName = (queue: QueueDefinition): string => `${queue.name}-dlq`;

/** The queues of the service. */
export const queueDefinitions: QueueDefinition[] = [
  {
    // Delivery receipts to forward to callers' callback_url (spec A4). A failed forward is
    // logged and not retried (spec Events 1), so messages reach the DLQ only when the consumer
    // itself fails before it could try.
    name: 'callbacks',
    urlVariable: 'CALLBACK_QUEUE_URL',
    consumer: { name: 'forward-receipt', handler: 'functions/forward-receipt.ts' },
    consumerTimeoutSeconds: 30,
    maxReceiveCount: 3,
    batchSize: 10,
    access: { table: 'none', secrets: ['CALLBACK_SIGNING_SECRET'] },
  },
  {
    // Post-payment fulfilment of an order (spec Events 2; docs/fulfilment.md): payment events
    // from the Stripe webhook. Sends receipts (SES), SMS and the operations notification (SNS).
    name: 'fulfilment',
    urlVariable: 'FULFILMENT_QUEUE_URL',
    consumer: { name: 'fulfil-order', handler: 'functions/fulfil-order.ts' },
    consumerTimeoutSeconds: 60,
    maxReceiveCount: 5,
    batchSize: 5,
    access: { table: 'readWrite', secrets: ['SMS_PROVIDER_TOKEN'], sendsEmail: true, notifiesOperations: true },
  },
  {
    // Lifecycle events to webhook subscribers (issue #15; docs/webhooks.md): one message per
    // (event, subscription), queued by the stream consumer (./streams.ts). Each receive is one
    // attempt: 7 attempts over about 20 hours (the consumer hides a failed message for the
    // next wait of its schedule), then the dead-letter queue.
    name: 'webhook-deliveries',
    urlVariable: 'WEBHOOK_DELIVERY_QUEUE_URL',
    consumer: { name: 'deliver-webhook', handler: 'functions/deliver-webhook.ts' },
    consumerTimeoutSeconds: 30,
    maxReceiveCount: 7,
    batchSize: 10,
    access: { table: 'readWrite', secrets: ['WEBHOOK_SECRETS_KEY'] },
    consumerSchedulesRetries: true,
  },
  {
    // The operator feed (issue #20; docs/feed.md): JSON Lines of SIMs, their status and usage,
    // customers and bundles from the operator's systems, up to 256 KB a message. Only the
    // principal given at deploy may send (-c feedPrincipalArn). A message that fails every
    // receive (unreadable, or the table failing) goes to the dead-letter queue.
    name: 'operator-feed',
    urlVariable: 'OPERATOR_FEED_QUEUE_URL',
    consumer: { name: 'apply-operator-feed', handler: 'functions/apply-operator-feed.ts' },
    consumerTimeoutSeconds: 120,
    maxReceiveCount: 5,
    batchSize: 5,
    access: { table: 'readWrite' },
    sentByDeployPrincipal: true,
    // A bulk load (a million lines, some 3,400 messages) waits longer than the other queues' 5 minutes.
    oldestMessageAlarmSeconds: 1800,
  },
  {
    // SIM actions to the operator's provisioning API (issue #33; docs/sim-actions.md,
    // docs/operator-provisioning-api.md): one message per action. Each receive is one attempt: an
    // answer 5xx or none is tried again after the schedule's wait (OPERATOR_RETRY_SCHEDULE_SECONDS,
    // about 1.7 hours over 8 attempts), then the dead-letter queue (alarmed; the action then
    // fails as operator_timeout after its 24 hours). A 4xx fails the action at once.
    name: 'operator-actions',
    urlVariable: 'OPERATOR_ACTION_QUEUE_URL',
    consumer: { name: 'send-sim-action', handler: 'functions/send-sim-action.ts' },
    consumerTimeoutSeconds: 30,
    maxReceiveCount: 8,
    batchSize: 10,
    access: { table: 'readWrite', secrets: ['OPERATOR_PROVISIONING_SECRET'], operatorProvisioning: true },
    consumerSchedulesRetries: true,
    // A message hidden for its retries waits up to the whole schedule (about 1.7 hours).
    oldestMessageAlarmSeconds: 7200,
  },
];

/** The definition of a queue by name. */
export const queueDefinition = (name: QueueName): QueueDefinition => {
  const found = queueDefinitions.find((queue) => queue.name === name);
  if (!found) throw new Error(`unknown queue ${name}`);
  return found;
};
