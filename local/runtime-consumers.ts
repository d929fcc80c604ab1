import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { queueDefinitions } from '../shared/topology/queues';
import type { QueueName } from '../shared/topology/routes';
import { streamConsumers } from '../shared/topology/streams';
import { localAwsEnv } from './demo-config';
import { startPollers } from './pollers';
import type { RuntimeCleanups } from './runtime-cleanups';
import type { QueueUrls } from './sqs-local';
import { startStreamReader, type StreamReader } from './stream-reader';
import type { StreamFailureQueueUrls } from './stream-failure-queues';

/** What the consumers read from. */
export interface RuntimeConsumerSources {
  sqs: SQSClient;
  queues: Record<QueueName, QueueUrls>;
  /** The stream consumers' failure queues: where the reader sends a record whose retries ran out. */
  streamFailureQueues: StreamFailureQueueUrls;
  dynamo: DynamoDBClient;
  dynamodbEndpoint: string;
  tableName: string;
  retryDelaySeconds?: number;
  quiet?: boolean;
}

/**
 * Starts the queue pollers and the reader of the table's stream (read as Lambda's event source
 * mapping reads it, into the same consumers); both stop with the runtime. Resolves once the
 * reader is ready: a change made from then on reaches the stream's consumers (the reader
 * starts at the stream's latest record).
 */
export const startConsumers = async (sources: RuntimeConsumerSources, cleanups: RuntimeCleanups): Promise<StreamReader> => {
  const pollers = startPollers({
    client: sources.sqs,
    targets: queueDefinitions.map((queue) => ({ queue, url: sources.queues[queue.name].url })),
    retryDelaySeconds: sources.retryDelaySeconds,
    quiet: sources.quiet,
  });
  cleanups.add(() => pollers.stop());

  const credentials = { accessKeyId: localAwsEnv.AWS_ACCESS_KEY_ID, secretAccessKey: localAwsEnv.AWS_SECRET_ACCESS_KEY };
  const streams = new DynamoDBStreamsClient({ endpoint: sources.dynamodbEndpoint, region: localAwsEnv.AWS_REGION, credentials });
  const streamReader = startStreamReader({
    dynamo: sources.dynamo,
    streams,
    tableName: sources.tableName,
    consumers: streamConsumers,
    quiet: sources.quiet,
    failureQueues: { sqs: sources.sqs, urls: sources.streamFailureQueues },
  });
  cleanups.add(async () => {
    await streamReader.stop();
    streams.destroy();
  });
  await streamReader.ready;
  return streamReader;
};
