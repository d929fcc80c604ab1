/**
 * How a correlation id travels through SQS: as the message attribute `correlation_id` (and
 * `origin_correlation_id`, the request that started the story, when it differs: the SMS send
 * behind a receipt), set by whoever sends (receive-sms-receipt, stripe-webhook) from the
 * invocation in progress, and read by the consumer (shared/queues/consumer.ts) into the
 * context of that record, so every log line of what the consumer does carries it.
 */
import type { MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { correlationId, logKeys, type LogFields } from './invocation';

/** The message attribute that carries the sending request's correlation id. */
export const correlationAttribute = 'correlation_id';
/** The message attribute that carries the correlation id of the request that started the story (the SMS send). */
export const originCorrelationAttribute = 'origin_correlation_id';

/** The SendMessage MessageAttributes that carry the current correlation ids (none outside an invocation). */
export const correlationAttributes = (): Record<string, MessageAttributeValue> => {
  const attributes: Record<string, MessageAttributeValue> = {};
  const id = correlationId();
  if (id) attributes[correlationAttribute] = { DataType: 'String', StringValue: id };
  const origin = logKeys().origin_correlation_id;
  if (typeof origin === 'string' && origin !== '') attributes[originCorrelationAttribute] = { DataType: 'String', StringValue: origin };
  return attributes;
};

/**
 * The log keys of one queue record: its correlation id (the attribute, or the SQS message id
 * for a message sent without one, e.g. by hand), its origin's if any, and its SQS message id.
 */
export const recordLogKeys = (record: Pick<SQSRecord, 'messageId' | 'messageAttributes'>): LogFields => {
  const attributes = record.messageAttributes ?? {};
  const carried = attributes[correlationAttribute]?.stringValue;
  const origin = attributes[originCorrelationAttribute]?.stringValue;
  return {
    correlation_id: carried || record.messageId,
    ...(origin ? { origin_correlation_id: origin } : {}),
    sqs_message_id: record.messageId,
  };
};
