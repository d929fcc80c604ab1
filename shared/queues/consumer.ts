import type { SQSBatchResponse, SQSEvent, SQSRecord, Context } from 'aws-lambda';
import { logKeys, withInvocation, withLogKeys } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { recordLogKeys } from '../observability/queue-correlation';

/**
 * Thrown by a record processor whose message is to be tried again on a schedule it set (a
 * webhook delivery that will be retried): an expected outcome, logged at WARN, not a failure
 * that needs a person (ERROR); the message still returns to the queue.
 */
export class RetryScheduled extends Error {
  override name = 'RetryScheduled';
}

/** Processes one queue message; throwing makes that message (only) return to the queue. */
export type RecordProcessor = (record: SQSRecord, context: Context) => Promise<void>;

/**
 * Builds an SQS consumer handler that processes the records of a batch concurrently and
 * reports the failed ones as `batchItemFailures` (the event source mapping is configured with
 * ReportBatchItemFailures), so one bad message never makes the whole batch retry.
 * Each record runs in a log context of its own (shared/observability/): the correlation id
 * its sender put in the message attributes, and its SQS message id, on every line of what
 * the record's processing logs. Each failure is logged with them: at ERROR, or at WARN when the
 * processor threw RetryScheduled (the message will be tried again as planned).
 */
export const sqsConsumer =
  (consumerName: string, processRecord: RecordProcessor) =>
  (event: SQSEvent, context: Context): Promise<SQSBatchResponse> =>
    withInvocation(context, { consumer: consumerName }, async () => {
      if (logKeys().cold_start === true) recordMetric('ColdStart', { function_name: context.functionName });
      const results = await Promise.allSettled(
        event.Records.map((record) => withLogKeys(recordLogKeys(record), () => processRecord(record, context))),
      );
      const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
      results.forEach((result, index) => {
        if (result.status === 'fulfilled') return;
        const record = event.Records[index]!;
        const reason = result.reason;
        const fields = {
          receive_count: Number(record.attributes?.ApproximateReceiveCount ?? 0),
          error: reason instanceof Error ? reason.message : String(reason),
        };
        withLogKeys(recordLogKeys(record), () =>
          reason instanceof RetryScheduled ? logger.warn('queue message failed; retry scheduled', fields) : logger.error('queue message failed', fields),
        );
        batchItemFailures.push({ itemIdentifier: record.messageId });
      });
      return { batchItemFailures };
    });
