import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { FunctionConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { errorReason, isOutage } from '../errors/outage';
import { logKeys, withInvocation, withLogKeys } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { sqsClient } from '../queues/sqs-client';
import { setAsideStreamRecord, sqsStreamFailureQueue, type StreamFailureQueue } from '../queues/stream-failures';
import { sqsDeliveryQueue } from '../webhooks/delivery-queue';
import { batchPublisher, type PublishDeps } from '../webhooks/publish';

/** What the lifecycle event consumer needs: what publishing needs, and its failure queue. */
export interface LifecycleConsumerDeps extends PublishDeps {
  /** Where a record it cannot process is set aside (shared/queues/stream-failures.ts). */
  failures: StreamFailureQueue;
}

/** The deps of the publish-lifecycle-events function, from its configuration (read once at init). */
export const publishDeps = (config: FunctionConfig<'publish-lifecycle-events'>): LifecycleConsumerDeps => ({
  db: documentClient(config),
  tableName: config.tableName,
  queue: sqsDeliveryQueue(sqsClient(config), config.deliveryQueueUrl),
  failures: sqsStreamFailureQueue(sqsClient(config), config.failureQueueUrl),
});

/** The name the consumer goes by in its lines and set-aside messages (shared/topology/streams.ts). */
const consumerName = 'publish-lifecycle-events';

/**
 * Consumer of the table's stream (issue #15, point 3): turns changes of SIM and credential
 * items into lifecycle events and queues one delivery job per (event, subscription) on the
 * webhook-deliveries queue (shared/webhooks/publish.ts). Records are handled one by one, in
 * order, and a record never holds up the ones after it (issue #31, point 5):
 * - a record that fails for a reason of its own (its item is malformed, the queue refuses its
 *   job) is set aside at once with the reason, on the consumer's failure queue
 *   (shared/queues/stream-failures.ts), and the records after it go on: its events are not
 *   published (a job of it already queued stays queued);
 * - an outage (shared/errors/outage.ts: throttling, a 5xx, a timeout, the network) reports it
 *   and everything after it as `batchItemFailures` (its sequence number), so the stream is read
 *   again from there (ReportBatchItemFailures), never skipping a change: a record read again
 *   makes the same event ids, and receivers de-duplicate on them.
 */
export const publishLifecycleEvents =
  (deps: LifecycleConsumerDeps) =>
  (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> =>
    withInvocation(context, { consumer: consumerName }, async () => {
      if (logKeys().cold_start === true) recordMetric('ColdStart', { function_name: context.functionName });
      const publish = batchPublisher(deps);
      for (const record of event.Records) {
        // A record's stream event id is its correlation id: on every line about it, and in the
        // message attributes of the delivery jobs it queues (so in the deliveries' lines too).
        const keys = { correlation_id: record.eventID, stream_sequence_number: record.dynamodb?.SequenceNumber };
        const done = await withLogKeys(keys, async () => {
          try {
            await publish(record);
            return true;
          } catch (error) {
            if (!isOutage(error)) return setAsideStreamRecord(deps.failures, consumerName, record, error);
            logger.error('lifecycle event publishing failed (outage); the batch is read again from this record', { error: errorReason(error) });
            return false;
          }
        });
        if (!done) return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
      }
      return { batchItemFailures: [] };
    });
