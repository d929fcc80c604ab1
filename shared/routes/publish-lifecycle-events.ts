import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { FunctionConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { logKeys, withInvocation, withLogKeys } from '../observability/invocation';
import { recordMetric } from '../observability/metrics';
import { sqsClient } from '../queues/sqs-client';
import { sqsDeliveryQueue } from '../webhooks/delivery-queue';
import { batchPublisher, type PublishDeps } from '../webhooks/publish';

/** The deps of the publish-lifecycle-events function, from its configuration (read once at init). */
export const publishDeps = (config: FunctionConfig<'publish-lifecycle-events'>): PublishDeps => ({
  db: documentClient(config),
  tableName: config.tableName,
  queue: sqsDeliveryQueue(sqsClient(config), config.deliveryQueueUrl),
});

/**
 * Consumer of the table's stream (issue #15, point 3): turns changes of SIM and credential
 * items into lifecycle events and queues one delivery job per (event, subscription) on the
 * webhook-deliveries queue (shared/webhooks/publish.ts). Records are handled in order; when one
 * fails, it and everything after it are reported as `batchItemFailures` (its sequence number), so
 * the stream is read again from there (ReportBatchItemFailures), never skipping a change.
 */
export const publishLifecycleEvents =
  (deps: PublishDeps) =>
  (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> =>
    withInvocation(context, { consumer: 'publish-lifecycle-events' }, async () => {
      if (logKeys().cold_start === true) recordMetric('ColdStart', { function_name: context.functionName });
      const publish = batchPublisher(deps);
      for (const record of event.Records) {
        // A record's stream event id is its correlation id: on every line about it, and in the
        // message attributes of the delivery jobs it queues (so in the deliveries' lines too).
        const keys = { correlation_id: record.eventID, stream_sequence_number: record.dynamodb?.SequenceNumber };
        const published = await withLogKeys(keys, () => publish(record));
        if (!published) return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
      }
      return { batchItemFailures: [] };
    });
