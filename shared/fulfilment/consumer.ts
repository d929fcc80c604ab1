import type { SQSRecord } from 'aws-lambda';
import { queueDefinition } from '../topology/queues';
import type { RecordProcessor } from '../queues/consumer';
import type { FulfilmentDeps } from './deps';
import { errorSummary, logFulfilment } from './log';
import { orderIdOfBody, parseFulfilmentMessage } from './message';
import { closePaymentEvent } from './payment-events';
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
 * The event's record (./payment-events.ts) is closed once the message is finished
 * (`finished` with the outcome) or given up at its last receive (`dead_lettered`).
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
      // Finished, whatever the outcome: the event's record leaves the unfinished index. A
      // failure here retries the message, which then changes nothing but this record.
      await closePaymentEvent(current, message.event_id, 'finished', outcome, current.now());
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
      if (step.next === 'dead-letter queue') {
        // Given up, as SQS will: a person redrives the dead-letter queue; nothing re-drives it by itself.
        await closePaymentEvent(current, message.event_id, 'dead_lettered', errorSummary(error).message, current.now()).catch((closeError: unknown) =>
          logFulfilment('ERROR', 'payment event record not closed', { eventId: message.event_id, error: errorSummary(closeError) }),
        );
      }
      throw error;
    }
  };
