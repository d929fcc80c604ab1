import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSRecord } from 'aws-lambda';
import type { FunctionConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { applyFeedMessage, isFeedText, UnreadableFeedMessage } from '../feed/apply';
import { sqsConsumer } from '../queues/consumer';

/** What the operator feed's consumer needs: the table and a clock. */
export interface FeedConsumerDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  now: () => number;
}

/** The deps of the apply-operator-feed function, from its configuration (read once at init). */
export const feedConsumerDeps = (config: FunctionConfig<'apply-operator-feed'>): FeedConsumerDeps => ({
  db: documentClient(config),
  tableName: config.tableName,
  now: Date.now,
});

/** The number of a message's first line in its file: its `first_line` attribute (the admin CLI's bulk loads), else 1. */
const firstLineOf = (record: SQSRecord): number => {
  const value = Number(record.messageAttributes?.first_line?.stringValue);
  return Number.isSafeInteger(value) && value >= 1 ? value : 1;
};

/**
 * Consumer of the operator-feed queue (issue #20): each message is JSON Lines of up to 256 KB,
 * applied line by line (shared/feed/apply.ts); a refused line is kept with its reason and never
 * fails the message. A message that cannot be read at all, or whose application fails (the table
 * throttled), is reported as a failure alone (ReportBatchItemFailures): it comes back, and goes
 * to the dead-letter queue after its receives. Applying a message twice changes nothing more.
 */
export const applyOperatorFeedConsumer = (deps: FeedConsumerDeps) =>
  sqsConsumer('apply-operator-feed', async (record) => {
    if (!isFeedText(record.body)) throw new UnreadableFeedMessage(`message ${record.messageId} holds no line`);
    await applyFeedMessage(deps, { body: record.body, firstLine: firstLineOf(record), batchId: record.messageId }, deps.now());
  });
