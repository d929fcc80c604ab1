import type { SQSRecord } from 'aws-lambda';
import { queueDefinition } from '../topology/queues';
import { sqsConsumer, type RecordProcessor } from '../queues/consumer';
import type { FulfilmentDeps } from '../fulfilment/deps';
import { appendLogKeys } from '../observability/invocation';
import { logger } from '../observability/logger';
import { orderIdOfBody, parseFulfilmentMessage } from '../fulfilment/message';
import { processPaymentMessage } from '../fulfilment/process';

/** Where a failing message goes next: back to the queue, or (at the last receive) to the dead-letter queue. */
const nextStep = (record: SQSRecord): { receive_count: number; max_receive_count: number; next: 'retry' | 'dead-letter queue' } => {
  const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 0);
  const { maxReceiveCount } = queueDefinition('fulfilment');
  return { receive_count: receiveCount, max_receive_count: maxReceiveCount, next: receiveCount >= maxReceiveCount ? 'dead-letter queue' : 'retry' };
};

/**
 * The record processor of the fulfilment queue: parses the message and processes the payment
 * event. A message that fails is logged with its order id (beside the shared consumer's
 * line with the message id), its receive count and whether it goes back to the queue or, at
 * the last receive, to the dead-letter queue; then rethrown so that only it is retried.
 */
export const fulfilmentRecordProcessor =
  (current: FulfilmentDeps): RecordProcessor =>
  async (record) => {
    let message;
    try {
      message = parseFulfilmentMessage(record.body);
      appendLogKeys({ order_id: message.order_id, event_id: message.event_id });
    } catch (error) {
      logger.error('malformed fulfilment message', {
        order_id: orderIdOfBody(record.body),
        ...nextStep(record),
        error,
      });
      throw error;
    }
    try {
      const outcome = await processPaymentMessage(current, message);
      logger.info('payment event processed', { order_id: message.order_id, event_id: message.event_id, type: message.type, outcome });
    } catch (error) {
      const step = nextStep(record);
      logger.error('fulfilment failed', {
        order_id: message.order_id,
        event_id: message.event_id,
        type: message.type,
        ...step,
        error,
      });
      throw error;
    }
  };

/**
 * Consumer of the fulfilment queue (spec Events 2; docs/fulfilment.md): each message is one
 * verified Stripe payment event, processed by fulfilmentRecordProcessor; a failing message is
 * retried alone (ReportBatchItemFailures).
 */
export const fulfilOrderConsumer = (deps: FulfilmentDeps) => sqsConsumer('fulfil-order', fulfilmentRecordProcessor(deps));
