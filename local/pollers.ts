import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { formatLine, logger, logOutput } from '../shared/observability/logger';
import type { SQSEvent } from 'aws-lambda';
import type { QueueDefinition } from '../shared/topology/queues';
import { invokeHandler, loadHandler, type LambdaHandler } from './handler-loader';
import { lambdaContext } from './lambda-context';
import { buildSqsEvent } from './sqs-event';
import { abortableSleep } from './abortable-sleep';

/** One queue to poll and the consumer to invoke with its messages. */
export interface PollerTarget {
  /** The queue's definition: consumer, batch size, consumer timeout. */
  queue: QueueDefinition;
  /** URL of the queue in the emulator. */
  url: string;
  /** Invoke this function instead of the consumer module (tests). */
  handler?: LambdaHandler;
}

/** Options of startPollers. */
export interface PollerOptions {
  client: SQSClient;
  targets: PollerTarget[];
  /**
   * Visibility timeout (seconds) given to a failed message, so it is retried soon instead of
   * after the queue's full visibility timeout. Default 1; 0 retries at once.
   */
  retryDelaySeconds?: number;
  /** Long-poll wait per ReceiveMessage call (seconds, default 1). */
  waitTimeSeconds?: number;
  /** No per-batch log line. */
  quiet?: boolean;
  /** Where log lines go (default: stdout, as the logger writes them). */
  log?: (line: string) => void;
}

/** Running pollers. */
export interface Pollers {
  /** Stops polling; resolves once every batch in progress is finished. */
  stop(): Promise<void>;
}

const chunks = <T>(items: T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, index * size + size));

/**
 * The messages a consumer result reports as failed, as Lambda reads it with
 * ReportBatchItemFailures: nothing returned means all succeeded; an identifier that is
 * empty or not in the batch fails the whole batch.
 */
export const failedMessageIds = (result: unknown, event: SQSEvent): Set<string> => {
  const all = new Set(event.Records.map((record) => record.messageId));
  const failures = (result as { batchItemFailures?: unknown } | null | undefined)?.batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return all;
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !all.has(id)) return all;
    failed.add(id);
  }
  return failed;
};

/**
 * Polls each queue the way Lambda's SQS event source mapping does: long-polls batches of up
 * to the queue's batch size, invokes the consumer with a real SQSEvent, deletes the records
 * it did not report in batchItemFailures (none when it throws), and leaves the failed ones
 * to come back; after the queue's maxReceiveCount receives the emulator's redrive policy
 * moves them to the dead-letter queue. Failed messages become visible again after
 * `retryDelaySeconds` instead of the full visibility timeout, so local retries are quick
 * (except on a queue whose consumer schedules its own retries: `consumerSchedulesRetries`).
 */
export const startPollers = (options: PollerOptions): Pollers => {
  const controller = new AbortController();
  const log = options.log ?? ((line: string) => logOutput.write(line, 'INFO'));
  const retryDelaySeconds = options.retryDelaySeconds ?? 1;
  const waitTimeSeconds = options.waitTimeSeconds ?? 1;
  const { client } = options;

  const processBatch = async (target: PollerTarget, event: SQSEvent, handler: LambdaHandler): Promise<void> => {
    const { consumer } = target.queue;
    const context = lambdaContext({ name: consumer.name, timeoutSeconds: target.queue.consumerTimeoutSeconds });
    let failed: Set<string>;
    try {
      const result = await invokeHandler(handler, event, context, target.queue.consumerTimeoutSeconds * 1000);
      failed = failedMessageIds(result, event);
    } catch (error) {
      logger.error('consumer failed', {
        component: 'local-poller',
        consumer: consumer.name,
        function_request_id: context.awsRequestId,
        error: error instanceof Error ? error : String(error),
      });
      failed = new Set(event.Records.map((record) => record.messageId));
    }
    const succeeded = event.Records.filter((record) => !failed.has(record.messageId));
    const retried = event.Records.filter((record) => failed.has(record.messageId));
    for (const batch of chunks(succeeded, 10)) {
      await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: target.url,
          Entries: batch.map((record, index) => ({ Id: String(index), ReceiptHandle: record.receiptHandle })),
        }),
      );
    }
    // A consumer that schedules its own retries has set their visibility already.
    for (const batch of chunks(target.queue.consumerSchedulesRetries ? [] : retried, 10)) {
      await client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: target.url,
          Entries: batch.map((record, index) => ({
            Id: String(index),
            ReceiptHandle: record.receiptHandle,
            VisibilityTimeout: retryDelaySeconds,
          })),
        }),
      );
    }
    if (!options.quiet) {
      log(
        formatLine('INFO', 'queue batch', {
          component: 'local-poller',
          queue: target.queue.name,
          consumer: consumer.name,
          records: event.Records.length,
          failed: retried.length,
          correlation_ids: [...new Set(event.Records.map((record) => record.messageAttributes?.correlation_id?.stringValue ?? null))],
        }),
      );
    }
  };

  const poll = async (target: PollerTarget): Promise<void> => {
    const { signal } = controller;
    let queueArn: string | undefined;
    let handler = target.handler;
    while (!signal.aborted) {
      try {
        queueArn ??= (
          await client.send(new GetQueueAttributesCommand({ QueueUrl: target.url, AttributeNames: ['QueueArn'] }), {
            abortSignal: signal,
          })
        ).Attributes?.QueueArn;
        handler ??= await loadHandler(target.queue.consumer.handler);
        const received = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: target.url,
            MaxNumberOfMessages: target.queue.batchSize,
            WaitTimeSeconds: waitTimeSeconds,
            AttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
          { abortSignal: signal },
        );
        const messages = received.Messages ?? [];
        if (messages.length === 0) continue;
        await processBatch(target, buildSqsEvent(messages, queueArn ?? target.url), handler);
      } catch (error) {
        if (signal.aborted) break;
        logger.error('queue poller failed', {
          component: 'local-poller',
          queue: target.queue.name,
          error: error instanceof Error ? error.message : String(error),
        });
        await abortableSleep(1000, signal);
      }
    }
  };

  const loops = options.targets.map((target) => poll(target));
  return {
    stop: async () => {
      controller.abort();
      await Promise.all(loops);
    },
  };
};
