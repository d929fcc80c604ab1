import type { Context, SNSEvent, SNSEventRecord } from 'aws-lambda';
import { logKeys, withInvocation, withLogKeys } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';

/** Processes one SNS message; throwing makes the whole invocation fail, so Lambda retries it (then its dead-letter queue). */
export type TopicMessageProcessor = (message: string, record: SNSEventRecord, context: Context) => Promise<void>;

/**
 * Builds the handler of a function subscribed to an SNS topic (shared/topology/topics.ts).
 * SNS invokes it asynchronously, one message per invocation; Lambda retries a failed
 * invocation twice, then hands the event to the function's dead-letter queue (the stack's;
 * locally, local/topics.ts does the same). So a message whose processing throws is retried
 * whole, and processing must be idempotent. Each record runs in a log context of its own:
 * its SNS message id is its correlation id.
 */
export const topicConsumer =
  (consumerName: string, processMessage: TopicMessageProcessor) =>
  (event: SNSEvent, context: Context): Promise<void> =>
    withInvocation(context, { consumer: consumerName }, async () => {
      if (logKeys().cold_start === true) recordMetric('ColdStart', { function_name: context.functionName });
      for (const record of event.Records) {
        const keys = { correlation_id: record.Sns.MessageId, sns_message_id: record.Sns.MessageId };
        await withLogKeys(keys, async () => {
          try {
            await processMessage(record.Sns.Message, record, context);
          } catch (error) {
            logger.error('topic message failed', { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
            throw error;
          }
        });
      }
    });
