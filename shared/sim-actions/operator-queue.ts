import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { AwsConfig, SdkSettingKey } from '../config/function-config';
import { correlationAttributes } from '../observability/queue-correlation';
import { sqsClient } from '../queues/sqs-client';
import { actionIdPattern } from './action-id';

/** One message of the operator-actions queue: the action to send to the operator's provisioning API. */
export interface OperatorJob {
  action_id: string;
  sim_id: number;
}

/** Puts actions onto the operator-actions queue. */
export interface OperatorQueue {
  enqueue(job: OperatorJob): Promise<void>;
}

/**
 * The operator-actions queue over SQS (SendMessage to OPERATOR_ACTION_QUEUE_URL), with the
 * request's correlation ids as message attributes; the client is built once per container.
 */
export const sqsOperatorQueue = (config: Pick<AwsConfig, 'region' | 'sqsEndpoint' | SdkSettingKey>, queueUrl: string): OperatorQueue => ({
  enqueue: async (job) => {
    await sqsClient(config).send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(job), MessageAttributes: correlationAttributes() }));
  },
});

/** A queue message's job; throws when the body is not one (the message then goes to the dead-letter queue). */
export const parseOperatorJob = (body: string): OperatorJob => {
  const parsed = JSON.parse(body) as Partial<OperatorJob> | null;
  if (typeof parsed?.action_id !== 'string' || !actionIdPattern.test(parsed.action_id) || !Number.isSafeInteger(parsed.sim_id)) {
    throw new Error('malformed operator-actions queue message');
  }
  return { action_id: parsed.action_id, sim_id: parsed.sim_id! };
};
