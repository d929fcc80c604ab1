/**
 * Where a consumer of the table's stream puts a record it cannot process (issue #31, point 5):
 * its failure queue, the same queue its event source mapping sends the positions of records
 * whose retries ran out to (infra/constructs/stream-consumer.ts; locally the SQS emulator's
 * queue of the same name, local/stream-failure-queues.ts). The message holds the record itself
 * (so it can be replayed), why it was set aside and which consumer did it; a CloudWatch alarm
 * watches the queue (docs/operations.md, "dead-letter-queue-not-empty").
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { errorReason, isOutage } from '../errors/outage';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { correlationAttributes } from '../observability/queue-correlation';

/** What a failure queue message of a set-aside record says (the queue's JSON body). */
export interface SetAsideStreamRecord {
  /** Tells this message from the event source mapping's own (`DDBStreamBatchInfo`, records whose retries ran out). */
  kind: 'stream-record-set-aside';
  /** The consumer that set the record aside (a stream consumer of shared/topology/streams.ts). */
  consumer: string;
  /** Why: the error's name and (the first 200 characters of) its message (../errors/outage.ts errorReason). */
  reason: string;
  set_aside_at: string;
  event_id: string | null;
  event_name: string | null;
  sequence_number: string | null;
  /** The stream's ARN (the event source mapping's; locally DynamoDB Local's). */
  stream_arn: string | null;
  /** The item's key (PK, SK), unmarshalled. */
  keys: Record<string, unknown>;
  /** The `type` of the item's new image, or of its old one for a removal. */
  item_type: string | null;
  /** When the change was made (the record's ApproximateCreationDateTime), ISO 8601. */
  changed_at: string | null;
  /** The record as the consumer got it, for a replay (`{"Records": [record]}`); absent when the message would be too large. */
  record?: DynamoDBRecord;
  /** Why `record` is absent. */
  record_omitted?: string;
}

/** A consumer's failure queue. */
export interface StreamFailureQueue {
  /** Sends one set-aside record's message; throws what the queue answered when it was not taken. */
  send(entry: SetAsideStreamRecord): Promise<void>;
}

/** The largest body sent with the record in it: under SQS's 256 KiB message limit, with room for the attributes. */
export const maxFailureMessageBytes = 240 * 1024;

/** The message body of an entry: with the record when it fits in `maxFailureMessageBytes`, else without it, saying so. */
export const failureMessageBody = (entry: SetAsideStreamRecord): string => {
  const whole = JSON.stringify(entry);
  if (Buffer.byteLength(whole) <= maxFailureMessageBytes) return whole;
  const { record: _record, ...rest } = entry;
  return JSON.stringify({ ...rest, record_omitted: 'the record is larger than a queue message: read it from the stream (kept 24 hours) at sequence_number' });
};

/** The failure queue over SQS: one SendMessage per set-aside record, carrying the invocation's correlation id. */
export const sqsStreamFailureQueue = (client: SQSClient, queueUrl: string): StreamFailureQueue => ({
  send: async (entry) => {
    await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: failureMessageBody(entry), MessageAttributes: correlationAttributes() }));
  },
});

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The item's `type` in a marshalled image, if it has one. */
const typeOf = (image: unknown): string | null => text((image as { type?: { S?: unknown } } | undefined)?.type?.S);

/** The record's keys unmarshalled; a key the SDK cannot read is shown as it came. */
const keysOf = (record: DynamoDBRecord): Record<string, unknown> => {
  const keys = record.dynamodb?.Keys;
  if (!keys) return {};
  try {
    return unmarshall(keys as Record<string, AttributeValue>);
  } catch {
    return { ...keys };
  }
};

/** The failure queue message of `record`, set aside by `consumer` because of `error`. */
export const setAsideEntry = (consumer: string, record: DynamoDBRecord, error: unknown, now: Date = new Date()): SetAsideStreamRecord => {
  const change = record.dynamodb;
  const seconds = change?.ApproximateCreationDateTime;
  return {
    kind: 'stream-record-set-aside',
    consumer,
    reason: errorReason(error),
    set_aside_at: now.toISOString(),
    event_id: text(record.eventID),
    event_name: text(record.eventName),
    sequence_number: text(change?.SequenceNumber),
    stream_arn: text(record.eventSourceARN),
    keys: keysOf(record),
    item_type: typeOf(change?.NewImage) ?? typeOf(change?.OldImage),
    changed_at: typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : null,
    record,
  };
};

/**
 * Sets one stream record aside (issue #31, point 5): an ERROR line with the consumer, the
 * record's ids, keys and item type and the reason (the line is the record of it in any case),
 * the `StreamRecordsSetAside` metric, and the message on the consumer's failure queue, which an
 * alarm watches. Resolves true once the record is set aside, so the consumer goes on with the
 * records after it; false when the queue could not take the message because of an outage
 * (then the consumer reads the batch again from this record, as for any outage). A queue that
 * refuses the message for any other reason (it cannot be sent as it is) leaves the log line
 * as the only record of it, and still resolves true: a record never holds up the others.
 */
export const setAsideStreamRecord = async (queue: StreamFailureQueue, consumer: string, record: DynamoDBRecord, error: unknown): Promise<boolean> => {
  const entry = setAsideEntry(consumer, record, error);
  const { record: _record, kind: _kind, ...fields } = entry;
  logger.error('stream record set aside', { ...fields, ...(error instanceof Error && error.stack ? { error } : {}) });
  recordMetric('StreamRecordsSetAside', { consumer });
  try {
    await queue.send(entry);
    return true;
  } catch (sendError) {
    if (isOutage(sendError)) {
      logger.error('stream record not set aside: its failure queue is unavailable; the batch is read again from it', { ...fields, error: errorReason(sendError) });
      return false;
    }
    logger.error('stream record set aside, but its failure queue refused the message: this line is its only record', { ...fields, error: errorReason(sendError) });
    return true;
  }
};
