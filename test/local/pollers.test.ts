import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startPollers, type Pollers } from '../../local/pollers';
import { queueDefinition } from '../../shared/topology/queues';
import { createTestQueues, testSqsClient } from '../support/resources';
import { eventually } from '../support/eventually';

let client: SQSClient;
let pollers: Pollers | undefined;

beforeEach(() => {
  client = testSqsClient();
});

afterEach(async () => {
  await pollers?.stop();
  pollers = undefined;
  client.destroy();
});

const counts = async (url: string) => {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return { visible: Number(Attributes?.ApproximateNumberOfMessages), inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible) };
};

describe('queue pollers', () => {
  it('invokes the consumer with a real SQSEvent and deletes the message it processed', async () => {
    const queues = await createTestQueues();
    const events: SQSEvent[] = [];
    const queue = queueDefinition('fulfilment');
    pollers = startPollers({
      client,
      targets: [{ queue, url: queues.fulfilment.url, handler: async (event) => void events.push(event as SQSEvent) }],
      quiet: true,
    });
    const sent = await client.send(
      new SendMessageCommand({
        QueueUrl: queues.fulfilment.url,
        MessageBody: '{"order_id":"ord_1"}',
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'order' } },
      }),
    );
    await eventually(() => expect(events).toHaveLength(1));
    const [record] = events[0]!.Records;
    const { QueueArn } = (
      await client.send(new GetQueueAttributesCommand({ QueueUrl: queues.fulfilment.url, AttributeNames: ['QueueArn'] }))
    ).Attributes!;
    expect(events[0]!.Records).toHaveLength(1);
    expect(record).toMatchObject({
      messageId: sent.MessageId,
      body: '{"order_id":"ord_1"}',
      md5OfBody: sent.MD5OfMessageBody,
      messageAttributes: { kind: { stringValue: 'order', stringListValues: [], binaryListValues: [], dataType: 'String' } },
      eventSource: 'aws:sqs',
      eventSourceARN: QueueArn,
      awsRegion: 'eu-west-2',
    });
    expect(record!.receiptHandle).toMatch(/.+/);
    expect(record!.attributes.ApproximateReceiveCount).toBe('1');
    expect(Number(record!.attributes.SentTimestamp)).toBeGreaterThan(0);
    await eventually(async () => expect(await counts(queues.fulfilment.url)).toEqual({ visible: 0, inFlight: 0 }));
  });

  it('deletes the records that succeeded and moves a failing one to the DLQ after maxReceiveCount receives', async () => {
    const queues = await createTestQueues();
    const queue = queueDefinition('callbacks');
    const receives: Array<{ body: string; count: string }> = [];
    pollers = startPollers({
      client,
      retryDelaySeconds: 0,
      quiet: true,
      targets: [
        {
          queue,
          url: queues.callbacks.url,
          handler: async (event): Promise<SQSBatchResponse> => {
            const records = (event as SQSEvent).Records;
            for (const record of records) receives.push({ body: record.body, count: record.attributes.ApproximateReceiveCount });
            return {
              batchItemFailures: records.filter((record) => record.body === 'bad').map((record) => ({ itemIdentifier: record.messageId })),
            };
          },
        },
      ],
    });
    await client.send(new SendMessageCommand({ QueueUrl: queues.callbacks.url, MessageBody: 'good' }));
    await client.send(new SendMessageCommand({ QueueUrl: queues.callbacks.url, MessageBody: 'bad' }));
    const dead = await eventually(async () => {
      const { Messages } = await client.send(
        new ReceiveMessageCommand({ QueueUrl: queues.callbacks.deadLetterUrl, AttributeNames: ['All'], WaitTimeSeconds: 0 }),
      );
      expect(Messages).toHaveLength(1);
      return Messages![0]!;
    });
    expect(dead.Body).toBe('bad');
    expect(receives.filter((receive) => receive.body === 'good').map((receive) => receive.count)).toEqual(['1']);
    expect(receives.filter((receive) => receive.body === 'bad').map((receive) => receive.count)).toEqual(
      Array.from({ length: queue.maxReceiveCount }, (_, index) => String(index + 1)),
    );
    expect(await counts(queues.callbacks.url)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('retries every record of a batch whose consumer throws', async () => {
    const queues = await createTestQueues();
    let calls = 0;
    pollers = startPollers({
      client,
      retryDelaySeconds: 0,
      quiet: true,
      targets: [
        {
          queue: queueDefinition('fulfilment'),
          url: queues.fulfilment.url,
          handler: async () => {
            calls += 1;
            if (calls === 1) throw new Error('first attempt fails (expected by the test)');
          },
        },
      ],
    });
    await client.send(new SendMessageCommand({ QueueUrl: queues.fulfilment.url, MessageBody: 'x' }));
    await eventually(() => expect(calls).toBe(2));
    await eventually(async () => expect(await counts(queues.fulfilment.url)).toEqual({ visible: 0, inFlight: 0 }));
    expect(calls).toBe(2);
  });
});
