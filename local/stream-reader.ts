import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, UpdateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type ShardIteratorType,
  type _Record as StreamRecord,
  type AttributeValue,
  type DynamoDBStreamsClient,
} from '@aws-sdk/client-dynamodb-streams';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { tableDefinition } from '../shared/db/table';
import type { StreamConsumerDefinition } from '../shared/topology/streams';
import { invokeHandler, loadHandler, type LambdaHandler } from './handler-loader';
import { lambdaContext, localAccountId, localRegion } from './lambda-context';
import { logger } from '../shared/observability/logger';
import { abortableSleep } from './abortable-sleep';
import type { StreamFailureQueueUrls } from './stream-failure-queues';

/** Options of startStreamReader. */
export interface StreamReaderOptions {
  dynamo: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  tableName: string;
  consumers: StreamConsumerDefinition[];
  /** Invoke this function instead of each consumer's module (tests). */
  handler?: LambdaHandler;
  /** Pause between reads of a shard with nothing new (default 200 ms). */
  idleMs?: number;
  /** Pause before a failed batch is read again (default 1000 ms). */
  retryDelayMs?: number;
  /**
   * The consumers' failure queues (local/stream-failure-queues.ts): where the position of a
   * record whose retries ran out is sent, as the event source mapping's on-failure destination
   * does. Without them such a record is given up with its ERROR line only.
   */
  failureQueues?: { sqs: SQSClient; urls: StreamFailureQueueUrls };
  quiet?: boolean;
}

/** A running stream reader. */
export interface StreamReader {
  /** Stops reading; resolves once the batch in progress is finished. */
  stop(): Promise<void>;
  /**
   * Reads nothing more until release (the batch in progress finishes): the stream keeps what
   * is written meanwhile, and release hands it on in batches of the consumer's batch size, as
   * an event source mapping does with a burst that arrives faster than its consumer.
   */
  hold(): void;
  /** Reads again after hold. */
  release(): void;
  /**
   * Resolves once every consumer holds an iterator for each open shard: a change written after
   * that reaches the consumers (the first look starts at the latest record, so one written
   * before may not). Resolves as well when the reader stops first, or the first look failed.
   */
  ready: Promise<void>;
}

/** An attribute value of the SDK (Uint8Array for binary) as Lambda's event carries it (base64 text). */
const lambdaAttribute = (value: AttributeValue): unknown => {
  // The SDK reads a map key `__proto__` (an attribute or a key of an M) as undefined; Lambda's
  // event would carry it, and the consumers' unmarshall drops it: left out here.
  if (value === undefined || value === null) return undefined;
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((bytes) => Buffer.from(bytes).toString('base64')) };
  if (value.M !== undefined) return { M: lambdaImage(value.M) };
  if (value.L !== undefined) return { L: value.L.map(lambdaAttribute) };
  return value;
};

const lambdaImage = (image: Record<string, AttributeValue> | undefined) =>
  image
    ? Object.fromEntries(
        Object.entries(image)
          .filter(([, value]) => value !== undefined && value !== null)
          .map(([name, value]) => [name, lambdaAttribute(value)]),
      )
    : undefined;

/**
 * A record read with GetRecords as Lambda's event source mapping hands it to a function:
 * ApproximateCreationDateTime in epoch seconds, binary values in base64, the stream's ARN.
 */
export const lambdaStreamRecord = (record: StreamRecord, streamArn: string): DynamoDBRecord => {
  const change = record.dynamodb ?? {};
  const created = change.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion ?? localRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(created ? { ApproximateCreationDateTime: Math.floor(new Date(created).getTime() / 1000) } : {}),
      Keys: lambdaImage(change.Keys),
      ...(change.NewImage ? { NewImage: lambdaImage(change.NewImage) } : {}),
      ...(change.OldImage ? { OldImage: lambdaImage(change.OldImage) } : {}),
      SequenceNumber: change.SequenceNumber,
      SizeBytes: change.SizeBytes,
      StreamViewType: change.StreamViewType,
    },
  } as DynamoDBRecord;
};

/** Whether a record passes a consumer's event filter: its new or old image's `type` is one of the consumer's (as the stack's filter criteria). */
export const passesFilter = (record: DynamoDBRecord, consumer: StreamConsumerDefinition): boolean =>
  [record.dynamodb?.NewImage, record.dynamodb?.OldImage].some((image) => {
    const type = (image as { type?: { S?: string } } | undefined)?.type?.S;
    return type !== undefined && consumer.itemTypes.includes(type);
  });

/** The table's stream ARN, enabling the stream first on a table created without one (an old --persist folder). */
const streamArnOf = async (options: StreamReaderOptions): Promise<string> => {
  const described = await options.dynamo.send(new DescribeTableCommand({ TableName: options.tableName }));
  if (described.Table?.LatestStreamArn && described.Table.StreamSpecification?.StreamEnabled) return described.Table.LatestStreamArn;
  const updated = await options.dynamo.send(
    new UpdateTableCommand({
      TableName: options.tableName,
      StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamView },
    }),
  );
  return updated.TableDescription!.LatestStreamArn!;
};

/**
 * Reads the table's DynamoDB stream from DynamoDB Local the way Lambda's event source mapping
 * reads it in AWS, and invokes the SAME consumer handlers (shared/topology/streams.ts) with
 * real DynamoDBStreamEvents: shards in order, up to the consumer's batch size per invocation,
 * only records that pass its `type` filter; when the consumer reports a batchItemFailure (or
 * throws), the shard is read again from that record after a second (ReportBatchItemFailures),
 * so no change is skipped, up to the consumer's `retryAttempts` retries: then the record is
 * given up, its position sent to the consumer's failure queue (as the on-failure destination
 * does), and the shard read on after it. A consumer reports a failure only for an outage: a
 * record it cannot process it sets aside itself (shared/queues/stream-failures.ts). Shards open at start are read from their latest record (changes from before the
 * runtime started, the seed load included, make no events); shards that appear later
 * (DynamoDB rolls them over) from their start.
 */
export const startStreamReader = (options: StreamReaderOptions): StreamReader => {
  const controller = new AbortController();
  const { signal } = controller;
  const idleMs = options.idleMs ?? 200;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  let held = false;

  const run = async (consumer: StreamConsumerDefinition, looked: () => void): Promise<void> => {
    const handler = options.handler ?? (await loadHandler(consumer.handler));
    const streamArn = await streamArnOf(options);
    const iterators = new Map<string, string | undefined>();
    const finished = new Set<string>();
    let firstLook = true;
    let lastDescribe = 0;

    /** An iterator of the shard: at its start, after its latest record, or at or after a record. */
    const iteratorAt = async (shardId: string, type: ShardIteratorType, sequenceNumber?: string): Promise<string | undefined> =>
      (await options.streams.send(new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: type, SequenceNumber: sequenceNumber })))
        .ShardIterator;
    /**
     * Where a shard is read from: a shard seen after the first look from its start; at the
     * first look an open shard from after its latest record, taken from its start when it
     * has none yet (DynamoDB Local can answer a LATEST iterator of an empty shard with
     * TrimmedDataAccessException once the first record arrives, and keep doing so).
     */
    const firstIterator = async (shardId: string, atFirstLook: boolean): Promise<string | undefined> => {
      const fromStart = await iteratorAt(shardId, 'TRIM_HORIZON');
      if (!atFirstLook || !fromStart) return fromStart;
      const probe = await options.streams.send(new GetRecordsCommand({ ShardIterator: fromStart, Limit: 1 }), { abortSignal: signal });
      if ((probe.Records ?? []).length === 0) return fromStart;
      return iteratorAt(shardId, 'LATEST');
    };
    const getPage = (iterator: string) =>
      options.streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: consumer.batchSize }), { abortSignal: signal });
    /** The last record read from each shard, where a trimmed iterator goes on from. */
    const lastRead = new Map<string, string>();
    /** Per shard, the record a batch last failed at and how many times in a row. */
    const failing = new Map<string, { sequenceNumber: string; attempts: number }>();

    /**
     * Gives up a record whose retries ran out, as the event source mapping does: its position
     * (Lambda's on-failure record, `DDBStreamBatchInfo`) to the consumer's failure queue and an
     * ERROR line; the shard is read on from after it. (Deployed, bisection has narrowed the
     * batch around it by then; here the record alone is given up.)
     */
    const giveUp = async (shardId: string, record: DynamoDBRecord, attempts: number, error: string | undefined): Promise<void> => {
      const sequenceNumber = record.dynamodb!.SequenceNumber!;
      const created = record.dynamodb?.ApproximateCreationDateTime;
      const arrival = created ? new Date(created * 1000).toISOString() : new Date().toISOString();
      const fields = { component: 'local-stream-reader', consumer: consumer.name, shard: shardId, sequence_number: sequenceNumber, correlation_id: record.eventID, attempts };
      logger.error('stream record given up: its retries ran out; its position goes to the failure queue', { ...fields, ...(error ? { error } : {}) });
      const url = options.failureQueues?.urls[consumer.name];
      if (!url) return;
      await options.failureQueues!.sqs.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: JSON.stringify({
            requestContext: {
              requestId: randomUUID(),
              functionArn: `arn:aws:lambda:${localRegion}:${localAccountId}:function:${consumer.name}`,
              condition: 'RetryAttemptsExhausted',
              approximateInvokeCount: attempts,
            },
            responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: error ? 'Unhandled' : null },
            version: '1.0',
            timestamp: new Date().toISOString(),
            DDBStreamBatchInfo: {
              shardId,
              startSequenceNumber: sequenceNumber,
              endSequenceNumber: sequenceNumber,
              approximateArrivalOfFirstRecord: arrival,
              approximateArrivalOfLastRecord: arrival,
              batchSize: 1,
              streamArn,
            },
          }),
        }),
      );
    };

    const discover = async () => {
      let exclusiveStartShardId: string | undefined;
      do {
        const described = await options.streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: exclusiveStartShardId }), {
          abortSignal: signal,
        });
        for (const shard of described.StreamDescription?.Shards ?? []) {
          const shardId = shard.ShardId!;
          if (iterators.has(shardId) || finished.has(shardId)) continue;
          const open = shard.SequenceNumberRange?.EndingSequenceNumber === undefined;
          if (firstLook && !open) {
            finished.add(shardId);
            continue;
          }
          iterators.set(shardId, await firstIterator(shardId, firstLook));
        }
        exclusiveStartShardId = described.StreamDescription?.LastEvaluatedShardId;
      } while (exclusiveStartShardId);
      firstLook = false;
      lastDescribe = Date.now();
      looked();
    };

    const readShard = async (shardId: string, iterator: string): Promise<boolean> => {
      let page: Awaited<ReturnType<typeof getPage>>;
      try {
        page = await getPage(iterator);
      } catch (error) {
        if (!(error instanceof TrimmedDataAccessException)) throw error;
        // DynamoDB Local keeps every record, so "trimmed" is spurious: go on after the last
        // record read, or from the shard's start when none was (consumers take replays).
        const last = lastRead.get(shardId);
        logger.warn('stream iterator trimmed, read again', { component: 'local-stream-reader', consumer: consumer.name, shard: shardId, after: last ?? 'the start' });
        iterators.set(shardId, last ? await iteratorAt(shardId, 'AFTER_SEQUENCE_NUMBER', last) : await iteratorAt(shardId, 'TRIM_HORIZON'));
        return true;
      }
      // Held while the page was on its way: nothing is handed on; the same iterator reads
      // these records again after release.
      if (held) return false;
      const records = (page.Records ?? []).map((record) => lambdaStreamRecord(record, streamArn)).filter((record) => passesFilter(record, consumer));
      if (records.length > 0) {
        const event: DynamoDBStreamEvent = { Records: records };
        const context = lambdaContext({ name: consumer.name, timeoutSeconds: consumer.timeoutSeconds });
        let failedAt: string | undefined;
        let thrown: string | undefined;
        try {
          const result = (await invokeHandler(handler, event, context, consumer.timeoutSeconds * 1000)) as
            | { batchItemFailures?: { itemIdentifier?: string }[] }
            | undefined;
          failedAt = result?.batchItemFailures?.[0]?.itemIdentifier;
        } catch (error) {
          failedAt = records[0]!.dynamodb!.SequenceNumber;
          thrown = error instanceof Error ? error.message : String(error);
          logger.error('stream consumer failed', {
            component: 'local-stream-reader',
            consumer: consumer.name,
            function_request_id: context.awsRequestId,
            error: error instanceof Error ? error : String(error),
          });
        }
        if (!options.quiet) {
          logger.info('stream batch', {
            component: 'local-stream-reader',
            consumer: consumer.name,
            records: records.length,
            correlation_ids: records.map((record) => record.eventID),
            failed: failedAt !== undefined,
          });
        }
        if (failedAt !== undefined) {
          const previous = failing.get(shardId);
          const attempts = previous?.sequenceNumber === failedAt ? previous.attempts + 1 : 1;
          const failedRecord = records.find((record) => record.dynamodb?.SequenceNumber === failedAt);
          // The first try and `retryAttempts` retries, then the record is given up (deployed: the
          // event source mapping's MaximumRetryAttempts and on-failure destination).
          if (attempts > consumer.retryAttempts && failedRecord) {
            failing.delete(shardId);
            await giveUp(shardId, failedRecord, attempts, thrown);
            lastRead.set(shardId, failedAt);
            iterators.set(shardId, await iteratorAt(shardId, 'AFTER_SEQUENCE_NUMBER', failedAt));
            return true;
          }
          failing.set(shardId, { sequenceNumber: failedAt, attempts });
          iterators.set(shardId, await iteratorAt(shardId, 'AT_SEQUENCE_NUMBER', failedAt));
          await abortableSleep(retryDelayMs, signal);
          return true;
        }
        failing.delete(shardId);
      }
      const lastRecord = page.Records?.at(-1)?.dynamodb?.SequenceNumber;
      if (lastRecord) lastRead.set(shardId, lastRecord);
      if (page.NextShardIterator) iterators.set(shardId, page.NextShardIterator);
      else {
        iterators.delete(shardId);
        finished.add(shardId);
      }
      return (page.Records ?? []).length > 0;
    };

    while (!signal.aborted) {
      try {
        if (firstLook || Date.now() - lastDescribe > 5000 || iterators.size === 0) await discover();
        if (held) {
          await abortableSleep(idleMs, signal);
          continue;
        }
        let busy = false;
        for (const [shardId, iterator] of [...iterators]) {
          if (signal.aborted || held) break;
          if (iterator) busy = (await readShard(shardId, iterator)) || busy;
        }
        if (!busy) await abortableSleep(idleMs, signal);
      } catch (error) {
        if (signal.aborted) break;
        logger.error('stream reader failed', {
          component: 'local-stream-reader',
          consumer: consumer.name,
          error: error instanceof Error ? error.message : String(error),
        });
        looked();
        await abortableSleep(1000, signal);
      }
    }
    looked();
  };

  const firstLooks: Promise<void>[] = [];
  const loops = options.consumers.map((consumer) => {
    let looked!: () => void;
    firstLooks.push(new Promise<void>((resolve) => (looked = resolve)));
    return run(consumer, looked).finally(() => looked());
  });
  return {
    ready: Promise.all(firstLooks).then(() => undefined),
    stop: async () => {
      controller.abort();
      await Promise.all(loops);
    },
    hold: () => {
      held = true;
    },
    release: () => {
      held = false;
    },
  };
};
