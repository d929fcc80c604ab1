import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { AwsConfig, SdkSettingKey } from '../config/function-config';
import { correlationAttributes } from '../observability/queue-correlation';
import { sqsClient } from '../queues/sqs-client';
import type { FulfilmentMessage } from './message';

/** Puts payment events onto the fulfilment queue. */
export interface FulfilmentQueue {
  enqueue(message: FulfilmentMessage): Promise<void>;
}

/**
 * The fulfilment queue over SQS (SendMessage to FULFILMENT_QUEUE_URL), with the webhook
 * request's correlation id as a message attribute. The client is built once per container;
 * locally it points at the SQS emulator.
 */
export const sqsFulfilmentQueue = (config: Pick<AwsConfig, 'region' | 'sqsEndpoint' | SdkSettingKey>, queueUrl: string): FulfilmentQueue => ({
  enqueue: async (message) => {
    await sqsClient(config).send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), MessageAttributes: correlationAttributes() }),
    );
  },
});
