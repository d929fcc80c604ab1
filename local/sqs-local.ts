import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { startFauxqs } from 'fauxqs';
import { deadLetterQueueName, queueDefinitions, visibilityTimeoutSeconds } from '../shared/topology/queues';
import type { QueueName } from '../shared/topology/routes';

/** A running SQS emulator (fauxqs, in-process). */
export interface SqsLocal {
  endpoint: string;
  stop(): Promise<void>;
}

/** Starts the fauxqs SQS emulator in this process on a free port. */
export const startSqsLocal = async (): Promise<SqsLocal> => {
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' });
  return { endpoint: server.address, stop: () => server.stop() };
};

/** URLs of one queue and its dead-letter queue. */
export interface QueueUrls {
  url: string;
  deadLetterUrl: string;
}

/**
 * Creates the service's queues and their dead-letter queues from the shared definitions
 * (same visibility timeouts and redrive receive counts as the stack). `prefix` keeps
 * several runtimes apart on one emulator.
 */
export const createQueues = async (client: SQSClient, prefix = ''): Promise<Record<QueueName, QueueUrls>> => {
  const result = {} as Record<QueueName, QueueUrls>;
  for (const queue of queueDefinitions) {
    const deadLetter = await client.send(new CreateQueueCommand({ QueueName: `${prefix}${deadLetterQueueName(queue)}` }));
    const attributes = await client.send(
      new GetQueueAttributesCommand({ QueueUrl: deadLetter.QueueUrl!, AttributeNames: ['QueueArn'] }),
    );
    const main = await client.send(
      new CreateQueueCommand({
        QueueName: `${prefix}${queue.name}`,
        Attributes: {
          VisibilityTimeout: String(visibilityTimeoutSeconds(queue)),
          RedrivePolicy: JSON.stringify({
            deadLetterTargetArn: attributes.Attributes!.QueueArn,
            maxReceiveCount: String(queue.maxReceiveCount),
          }),
        },
      }),
    );
    result[queue.name] = { url: main.QueueUrl!, deadLetterUrl: deadLetter.QueueUrl! };
  }
  return result;
};
