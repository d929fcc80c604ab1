/**
 * The failure queues of the table's stream consumers in the local runtime (issue #31, point 5):
 * one per consumer of shared/topology/streams.ts, in the SQS emulator, as the stack makes one
 * per consumer. The consumers set aside there a record they cannot process (the handler reads
 * the queue's URL from its configuration, as deployed: it does not know it runs locally), and
 * the local stream reader sends there the position of a record whose retries ran out (as the
 * event source mapping's on-failure destination). The developer console lists what they hold
 * (local/console/sections/stream-failures.ts), read without taking it.
 */
import { CreateQueueCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { StreamConsumerDefinition } from '../shared/topology/streams';

/** The name of a stream consumer's failure queue (the runtime's prefix before it). */
export const streamFailureQueueName = (consumer: Pick<StreamConsumerDefinition, 'name'>): string => `${consumer.name}-failures`;

/** The failure queue URL of each stream consumer, by consumer name. */
export type StreamFailureQueueUrls = Record<string, string>;

/** Creates (or finds) the failure queue of each consumer; `prefix` keeps runtimes sharing one emulator apart. */
export const createStreamFailureQueues = async (
  client: SQSClient,
  consumers: readonly StreamConsumerDefinition[],
  prefix = '',
): Promise<StreamFailureQueueUrls> => {
  const urls: StreamFailureQueueUrls = {};
  for (const consumer of consumers) {
    const created = await client.send(new CreateQueueCommand({ QueueName: `${prefix}${streamFailureQueueName(consumer)}` }));
    urls[consumer.name] = created.QueueUrl!;
  }
  return urls;
};

/** The handlers' environment naming each consumer's failure queue (`failureQueueUrlVariable`). */
export const streamFailureEnvironment = (consumers: readonly StreamConsumerDefinition[], urls: StreamFailureQueueUrls): Record<string, string> =>
  Object.fromEntries(consumers.flatMap((consumer) => (urls[consumer.name] ? [[consumer.failureQueueUrlVariable, urls[consumer.name]!]] : [])));

/** One message of a failure queue, as the console shows it. */
export interface StreamFailureMessage {
  /** The consumer whose queue holds it. */
  consumer: string;
  /** When the queue took it (ISO 8601). */
  sentAt: string;
  /** The message body, parsed (a set-aside record, or the reader's record of retries run out); the text when it is not JSON. */
  body: unknown;
}

/** What fauxqs's inspection endpoint answers for one queue (the parts read here). */
interface InspectedQueue {
  messages?: {
    ready?: InspectedMessage[];
    delayed?: InspectedMessage[];
    inflight?: { message?: InspectedMessage }[];
  };
}
interface InspectedMessage {
  body?: string;
  sentTimestamp?: number;
  attributes?: { SentTimestamp?: string };
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

/**
 * Every message of the consumers' failure queues, newest first, read with the SQS emulator's
 * inspection endpoint (fauxqs: `GET /_fauxqs/queues/<name>`), which takes nothing and changes
 * no visibility. An emulator without it (another SQS_ENDPOINT) lists nothing.
 */
export const readStreamFailures = async (sqsEndpoint: string, urls: StreamFailureQueueUrls): Promise<StreamFailureMessage[]> => {
  const lists = await Promise.all(
    Object.entries(urls).map(async ([consumer, url]) => {
      // The queue's name is the last part of its URL (the emulator's URLs are not WHATWG URLs).
      const name = decodeURIComponent(url.split('/').pop() ?? '');
      const response = await fetch(`${sqsEndpoint.replace(/\/$/, '')}/_fauxqs/queues/${encodeURIComponent(name)}`).catch(() => undefined);
      if (!response?.ok) return [];
      const queue = (await response.json()) as InspectedQueue;
      const messages = [...(queue.messages?.ready ?? []), ...(queue.messages?.delayed ?? []), ...(queue.messages?.inflight ?? []).flatMap((entry) => (entry.message ? [entry.message] : []))];
      return messages.map((message): StreamFailureMessage => {
        const sent = message.sentTimestamp ?? Number(message.attributes?.SentTimestamp ?? 0);
        return { consumer, sentAt: new Date(sent).toISOString(), body: parsed(message.body ?? '') };
      });
    }),
  );
  return lists.flat().sort((left, right) => right.sentAt.localeCompare(left.sentAt));
};
