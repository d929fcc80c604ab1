import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { isEventType, type LifecycleEvent } from './event-types';
import { correlationAttributes } from '../observability/queue-correlation';

/** One delivery job: one event for one subscription (the body is signed and posted as is). */
export interface DeliveryJob {
  customer_id: string;
  subscription_id: string;
  event: LifecycleEvent;
}

/** Puts delivery jobs onto the webhook-deliveries queue. */
export interface DeliveryQueue {
  enqueue(jobs: DeliveryJob[]): Promise<void>;
}


/**
 * The webhook-deliveries queue over SQS: SendMessageBatch in tens. Throws when any message
 * was not taken, so the stream batch is read again (the jobs are then sent twice at worst;
 * receivers de-duplicate on webhook-id).
 */
export const sqsDeliveryQueue = (client: SQSClient, queueUrl: string): DeliveryQueue => ({
  enqueue: async (jobs) => {
    for (let start = 0; start < jobs.length; start += 10) {
      const batch = jobs.slice(start, start + 10);
      const result = await client.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: batch.map((job, index) => ({ Id: String(index), MessageBody: JSON.stringify(job), MessageAttributes: correlationAttributes() })),
        }),
      );
      if (result.Failed?.length) throw new Error(`${result.Failed.length} delivery jobs were not queued: ${result.Failed[0]!.Message ?? result.Failed[0]!.Code}`);
    }
  },
});

/** Parses a webhook-deliveries message body; throws when it is not a DeliveryJob. */
export const parseDeliveryJob = (body: string): DeliveryJob => {
  const parsed = JSON.parse(body) as Partial<DeliveryJob>;
  const event = parsed?.event as Partial<LifecycleEvent> | undefined;
  if (
    typeof parsed?.customer_id !== 'string' ||
    typeof parsed.subscription_id !== 'string' ||
    !event ||
    typeof event.id !== 'string' ||
    !isEventType(event.type) ||
    typeof event.timestamp !== 'string' ||
    typeof event.data !== 'object' ||
    event.data === null
  ) {
    throw new Error('malformed webhook-deliveries message');
  }
  return parsed as DeliveryJob;
};
