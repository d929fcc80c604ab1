import type { SQSRecord } from 'aws-lambda';
import { queueDefinition } from '../topology/queues';
import type { RecordProcessor } from '../queues/consumer';
import type { FulfilmentDeps } from './deps';
import { errorSummary, logFulfilment } from './log';
import { orderIdOfBody, parseFulfilmentMessage } from './message';
import { processPaymentMessage } from './process';

/** Where a failing message goes next: back to the queue, or (at the last receive) to the dead-letter queue. */
const nextStep = (record: SQSRecord): { receiveCount: number; maxReceiveCount: number; next: 'retry' | 'dead-letter queue' } => {
  const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 0);
  const { maxReceiveCount } = queueDefinition('fulfilment');
  return { receiveCount, maxReceiveCount, next: receiveCount >= maxReceiveCount ? 'dead-letter queue' : 'retry' };
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
    } catch (error) {
      logFulfilment('ERROR', 'malformed fulfilment message', {
        orderId: orderIdOfBody(record.body),
        messageId: record.messageId,
        ...nextStep(record),
        error: errorSummary(error),
      });
      throw error;
    }
    try {
      const outcome = await processPaymentMessage(current, message);
      logFulfilment('INFO', 'payment event processed', { orderId: message.order_id, eventId: message.event_id, type: message.type, outcome });
    } catch (error) {
      const step = nextStep(record);
      logFulfilment('ERROR', 'fulfilment failed', {
        orderId: message.order_id,
        eventId: message.event_id,
        type: message.type,
        messageId: record.messageId,
        ...step,
        error: errorSummary(error),
      });
      throw error;
    }
  };
