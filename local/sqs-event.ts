import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord } from 'aws-lambda';
import { ownEntries } from './api-gateway-event';
import { localAccountId, localRegion } from './lambda-context';

/** The ARN of a queue by name, as the local runtime reports it. */
export const localQueueArn = (queueName: string): string => `arn:aws:sqs:${localRegion}:${localAccountId}:${queueName}`;

const toBase64 = (bytes: Uint8Array | undefined): string | undefined =>
  bytes === undefined ? undefined : Buffer.from(bytes).toString('base64');

/**
 * Message attributes in the shape Lambda's SQS event source passes them (camelCase, binary as
 * base64). Any attribute name a sender chose (`__proto__` is a valid SQS name) is an own entry,
 * as in the JSON Lambda parses (ownEntries).
 */
export const lambdaMessageAttributes = (attributes: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes =>
  ownEntries(
    Object.entries(attributes ?? {}).map(([name, value]) => [
      name,
      {
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined ? { binaryValue: toBase64(value.BinaryValue) } : {}),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map((bytes) => toBase64(bytes)!),
        dataType: value.DataType ?? 'String',
      },
    ] as const),
  ) as SQSMessageAttributes;

/**
 * The SQSEvent that Lambda's SQS event source mapping passes for received messages: one
 * record per message with its receipt handle, system attributes (ApproximateReceiveCount
 * and the rest), message attributes, MD5s, and the queue's ARN and region.
 */
export const buildSqsEvent = (messages: Message[], queueArn: string): SQSEvent => ({
  Records: messages.map(
    (message): SQSRecord => ({
      messageId: message.MessageId!,
      receiptHandle: message.ReceiptHandle!,
      body: message.Body ?? '',
      attributes: {
        ApproximateReceiveCount: '1',
        SentTimestamp: String(Date.now()),
        SenderId: localAccountId,
        ApproximateFirstReceiveTimestamp: String(Date.now()),
        ...(message.Attributes ?? {}),
      } as SQSRecord['attributes'],
      messageAttributes: lambdaMessageAttributes(message.MessageAttributes),
      md5OfBody: message.MD5OfBody ?? '',
      ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
      eventSource: 'aws:sqs',
      eventSourceARN: queueArn,
      awsRegion: localRegion,
    }),
  ),
});
