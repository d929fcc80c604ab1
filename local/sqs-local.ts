import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
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
  /** With a data folder: messages that were in flight when the emulator last stopped, made visible at this start. */
  inFlightReleased: number;
  stop(): Promise<void>;
}

/**
 * Makes every message that was in flight in fauxqs's data folder ready again, before the
 * emulator loads it: the folder belongs to one runtime, and the workers that received those
 * messages stopped with it, so nobody will delete them; otherwise each would stay invisible
 * for its queue's whole visibility timeout (6 minutes for fulfilment). Redelivering it is
 * what SQS itself does after the timeout. fauxqs (2.4.1, pinned) keeps its state in
 * `fauxqs.db`, table `sqs_messages`; an in-flight message is one with a `receipt_handle`.
 * (Its ChangeMessageVisibility does not find in-flight messages restored from the folder.)
 */
const releaseInFlight = (dataDir: string): number => {
  const file = join(dataDir, 'fauxqs.db');
  if (!existsSync(file)) return 0;
  const db = new DatabaseSync(file);
  try {
    const { changes } = db
      .prepare('UPDATE sqs_messages SET receipt_handle = NULL, visibility_deadline = NULL WHERE receipt_handle IS NOT NULL')
      .run();
    return Number(changes);
  } finally {
    db.close();
  }
};

/**
 * Starts the fauxqs SQS emulator in this process on a free port. With `dataDir` its queues
 * and messages are kept in SQLite in that folder (node:sqlite) and restored by the next start
 * on it, in-flight ones made visible at once (releaseInFlight); without, they live in memory.
 */
export const startSqsLocal = async (options: { dataDir?: string } = {}): Promise<SqsLocal> => {
  const inFlightReleased = options.dataDir ? releaseInFlight(options.dataDir) : 0;
  const server = await startFauxqs({
    port: 0,
    logger: false,
    host: '127.0.0.1',
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  return { endpoint: server.address, inFlightReleased, stop: () => server.stop() };
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
