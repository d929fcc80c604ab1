/**
 * The SNS topics of the local runtime (shared/topology/topics.ts): a message published to a
 * topic is handed to the topic's consumer function as a real SNSEvent, asynchronously, the way
 * a Lambda subscription of an SNS topic invokes it: a failed invocation is retried (the
 * definition's `retryAttempts`, after `retryDelayMs` instead of Lambda's minutes), then the
 * event goes to the consumer's dead-letter queue (in the SQS emulator, as the stack's
 * on-failure queue) and an ERROR line is logged. Messages are kept in memory only: a message
 * not yet handled when the runtime stops is lost (deployed, SNS and Lambda keep it).
 */
import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SNSEvent } from 'aws-lambda';
import { formatLine, logger, logOutput } from '../shared/observability/logger';
import type { TopicConsumerDefinition, TopicName } from '../shared/topology/topics';
import { invokeHandler, loadHandler } from './handler-loader';
import { lambdaContext, localAccountId, localRegion } from './lambda-context';

/** The ARN a local topic is given (SNS events carry it). */
export const localTopicArn = (topic: TopicName): string => `arn:aws:sns:${localRegion}:${localAccountId}:${topic}`;

/** The name of a topic consumer's dead-letter queue. */
export const topicDeadLetterQueueName = (definition: TopicConsumerDefinition): string => `${definition.consumer.name}-dlq`;

/** The SNS event Lambda gives a subscribed function for one message. */
export const buildSnsEvent = (topic: TopicName, message: string, messageId: string = randomUUID(), now: Date = new Date()): SNSEvent => ({
  Records: [
    {
      EventSource: 'aws:sns',
      EventVersion: '1.0',
      EventSubscriptionArn: `${localTopicArn(topic)}:${randomUUID()}`,
      Sns: {
        Type: 'Notification',
        MessageId: messageId,
        TopicArn: localTopicArn(topic),
        Subject: '',
        Message: message,
        Timestamp: now.toISOString(),
        SignatureVersion: '1',
        Signature: 'local',
        SigningCertUrl: 'https://sns.eu-west-2.amazonaws.com/local.pem',
        UnsubscribeUrl: `https://sns.eu-west-2.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${localTopicArn(topic)}`,
        MessageAttributes: {},
      },
    },
  ],
});

/** Options of startLocalTopics. */
export interface LocalTopicsOptions {
  /** The topics and their consumers. */
  definitions: TopicConsumerDefinition[];
  /** The SQS emulator, for the consumers' dead-letter queues. */
  sqs: SQSClient;
  /** Prefix of the dead-letter queue names (the runtime's queue prefix). */
  queuePrefix: string;
  /** Wait before a failed invocation is retried (default 1000 ms). */
  retryDelayMs?: number;
  /** No line per handled message. */
  quiet?: boolean;
  log?: (line: string) => void;
}

/** The running local topics. */
export interface LocalTopics {
  /** Publishes one message to a topic: queues it for the consumer and returns its SNS message id. */
  publish(topic: TopicName, message: string): string;
  /** The dead-letter queue URL of each topic's consumer. */
  deadLetterUrls: Record<TopicName, string>;
  /** Resolves once every message published so far has been handled (or dead-lettered). */
  settled(): Promise<void>;
  /** Stops: pending retries are dropped; resolves once invocations in progress end. */
  stop(): Promise<void>;
}

/** Creates the consumers' dead-letter queues and starts handing published messages to the consumers. */
export const startLocalTopics = async (options: LocalTopicsOptions): Promise<LocalTopics> => {
  const log = options.log ?? ((line: string) => logOutput.write(line, 'INFO'));
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const deadLetterUrls = {} as Record<TopicName, string>;
  for (const definition of options.definitions) {
    const created = await options.sqs.send(new CreateQueueCommand({ QueueName: `${options.queuePrefix}${topicDeadLetterQueueName(definition)}` }));
    deadLetterUrls[definition.topic] = created.QueueUrl!;
  }
  const inProgress = new Set<Promise<void>>();
  const waits = new Map<NodeJS.Timeout, () => void>();
  let stopped = false;

  const wait = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        waits.delete(timer);
        resolve();
      }, ms);
      waits.set(timer, resolve);
    });

  const deliver = async (definition: TopicConsumerDefinition, event: SNSEvent): Promise<void> => {
    const { consumer } = definition;
    let lastError: unknown;
    for (let attempt = 1; attempt <= definition.retryAttempts + 1 && !stopped; attempt += 1) {
      if (attempt > 1) await wait(retryDelayMs);
      if (stopped) return;
      const context = lambdaContext({ name: consumer.name, timeoutSeconds: definition.timeoutSeconds });
      try {
        const handler = await loadHandler(consumer.handler);
        await invokeHandler(handler, event, context, definition.timeoutSeconds * 1000);
        if (!options.quiet) {
          log(formatLine('INFO', 'topic message', { component: 'local-topics', topic: definition.topic, consumer: consumer.name, attempt, sns_message_id: event.Records[0]!.Sns.MessageId }));
        }
        return;
      } catch (error) {
        lastError = error;
        logger.warn('topic consumer failed', {
          component: 'local-topics',
          topic: definition.topic,
          consumer: consumer.name,
          attempt,
          function_request_id: context.awsRequestId,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    if (stopped) return;
    // As Lambda's on-failure destination for asynchronous invocations: the event and why.
    await options.sqs.send(
      new SendMessageCommand({
        QueueUrl: deadLetterUrls[definition.topic],
        MessageBody: JSON.stringify({
          requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: definition.retryAttempts + 1, functionArn: `arn:aws:lambda:${localRegion}:${localAccountId}:function:${consumer.name}` },
          requestPayload: event,
          responseContext: { functionError: 'Unhandled' },
          responsePayload: { errorMessage: lastError instanceof Error ? lastError.message : String(lastError) },
        }),
      }),
    );
    logger.error('topic message sent to the dead-letter queue', {
      component: 'local-topics',
      topic: definition.topic,
      consumer: consumer.name,
      sns_message_id: event.Records[0]!.Sns.MessageId,
      error: lastError instanceof Error ? lastError.message : String(lastError),
    });
  };

  return {
    deadLetterUrls,
    publish: (topic, message) => {
      const definition = options.definitions.find((candidate) => candidate.topic === topic);
      if (!definition) throw new Error(`unknown topic ${topic}`);
      const event = buildSnsEvent(topic, message);
      const delivery = deliver(definition, event).catch((error: unknown) => {
        logger.error('local topic delivery failed', { component: 'local-topics', topic, error: error instanceof Error ? error.message : String(error) });
      });
      inProgress.add(delivery);
      void delivery.finally(() => inProgress.delete(delivery));
      return event.Records[0]!.Sns.MessageId;
    },
    settled: async () => {
      while (inProgress.size > 0) await Promise.all([...inProgress]);
    },
    stop: async () => {
      stopped = true;
      for (const [timer, resolve] of waits) {
        clearTimeout(timer);
        resolve();
      }
      waits.clear();
      await Promise.all([...inProgress]);
    },
  };
};
