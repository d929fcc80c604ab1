import type { Message } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { lambdaContext } from '../../local/lambda-context';
import { buildSqsEvent, localQueueArn } from '../../local/sqs-event';
import type { FeedMessageDraft } from '../../shared/feed/messages';
import { queueDefinition } from '../../shared/topology/queues';

/** The operator feed's consumer as its function builds it (applyOperatorFeedConsumer). */
export type FeedConsumerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * Applies feed messages through the consumer as the event source mapping would: SQS events of
 * the queue's batch size (5 messages), one after the other, each message with its `first_line`.
 * Throws when the consumer reports a failed message. Calls `onInvocation` after each, with the
 * lines and messages of that invocation.
 */
export const applyThroughConsumer = async (
  handler: FeedConsumerHandler,
  drafts: Iterable<FeedMessageDraft>,
  name: string,
  onInvocation: (applied: { lines: number; messages: number; invocations: number }) => void = () => {},
): Promise<{ messages: number; invocations: number }> => {
  const queue = queueDefinition('operator-feed');
  let messages = 0;
  let invocations = 0;
  let batch: FeedMessageDraft[] = [];
  const invoke = async () => {
    const sqsMessages: Message[] = batch.map((draft, index) => ({
      MessageId: `${name}-${invocations}-${index}`,
      ReceiptHandle: `r-${invocations}-${index}`,
      Body: draft.body,
      MessageAttributes: { first_line: { DataType: 'Number', StringValue: String(draft.firstLine) } },
    }));
    const result = await handler(buildSqsEvent(sqsMessages, localQueueArn(queue.name)), lambdaContext({ name: queue.consumer.name, timeoutSeconds: queue.consumerTimeoutSeconds }));
    if (result.batchItemFailures.length > 0) throw new Error(`the consumer failed ${result.batchItemFailures.length} messages of invocation ${invocations}`);
    messages += batch.length;
    invocations += 1;
    onInvocation({ lines: batch.reduce((sum, draft) => sum + draft.lines, 0), messages, invocations });
    batch = [];
  };
  for (const draft of drafts) {
    batch.push(draft);
    if (batch.length === queue.batchSize) await invoke();
  }
  if (batch.length > 0) await invoke();
  return { messages, invocations };
};
