/**
 * The consumers of the table's DynamoDB stream as plain data, read by the CDK stack (an event
 * source mapping per consumer) and the local runtime (local/stream-reader.ts), beside the route
 * and queue tables. The table's stream view is in shared/db/table.ts.
 */
import type { RouteAccess } from './routes';

/** One consumer of the table's stream. */
export interface StreamConsumerDefinition {
  /** Function name; also the handler file's base name. */
  name: string;
  /** Handler module relative to the repository root; it exports `handler`. */
  handler: string;
  timeoutSeconds: number;
  /** Records per invocation. */
  batchSize: number;
  /**
   * Times a failing batch is retried before it is given up (its position then goes to the
   * failure queue). Only an outage, or the function itself failing (its timeout, its memory),
   * fails a batch: a record the consumer cannot process is set aside at once instead
   * (shared/queues/stream-failures.ts; docs/operations.md, "Stream records set aside").
   */
  retryAttempts: number;
  /**
   * Environment variable that gives the consumer the URL of its own failure queue, where it
   * sets aside a record it cannot process (the queue of the event source mapping's
   * on-failure destination too).
   */
  failureQueueUrlVariable: string;
  /** Only records whose new or old image has one of these `type` values reach the consumer (event filtering). */
  itemTypes: readonly string[];
  access: RouteAccess;
}

/** The stream consumers of the service. */
export const streamConsumers: StreamConsumerDefinition[] = [
  {
    // Lifecycle events (issue #15; docs/webhooks.md): SIM and credential changes (and received
    // SMS) become events,
    // one delivery job per (event, subscription) on the webhook-deliveries queue.
    name: 'publish-lifecycle-events',
    handler: 'functions/publish-lifecycle-events.ts',
    timeoutSeconds: 30,
    batchSize: 100,
    retryAttempts: 10,
    failureQueueUrlVariable: 'LIFECYCLE_FAILURE_QUEUE_URL',
    // sms_inbound: a message a SIM sent (issue #21), which makes sms.received; sim_action: a SIM
    // action that ended (issue #33), which makes action.completed or action.failed.
    itemTypes: ['sim', 'bearer_token', 'api_key', 'sms_inbound', 'sim_action'],
    access: { table: 'read', sendsTo: ['webhook-deliveries'] },
  },
  {
    // The SIM list index (issue #19; docs/area-a.md, "Lists at fleet scale"): every SIM put,
    // change and removal keeps the lists A1 reads exact. Big batches: the counts of a bucket
    // are written once per batch, whatever number of its SIMs changed.
    name: 'maintain-sim-lists',
    handler: 'functions/maintain-sim-lists.ts',
    timeoutSeconds: 60,
    batchSize: 500,
    retryAttempts: 20,
    failureQueueUrlVariable: 'SIM_LISTS_FAILURE_QUEUE_URL',
    itemTypes: ['sim'],
    access: { table: 'readWrite' },
  },
];
