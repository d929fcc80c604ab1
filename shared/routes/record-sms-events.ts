/**
 * The consumer of the `sms-events` topic (shared/topology/topics.ts; issue #21): delivery events
 * of AWS End User Messaging SMS. It is subscribed to its SNS topic and invoked with SNS events,
 * deployed and locally (local/topics.ts) alike.
 */
import { sqsReceiptQueue } from '../callbacks/receipt-queue';
import type { FunctionConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { topicConsumer } from '../queues/topic-consumer';
import { MalformedSmsEvent, parseDeliveryEvent, recordSmsDeliveryEvent, type DeliveryEventDeps } from '../sms/delivery-events';

/** The deps of the record-sms-events function, from its configuration (read once at init). */
export const deliveryEventDeps = (config: FunctionConfig<'record-sms-events'>): DeliveryEventDeps => ({
  table: { db: documentClient(config), tableName: config.tableName },
  queue: sqsReceiptQueue(config, config.callbackQueueUrl),
  now: () => new Date(),
});

/**
 * Consumer of the `sms-events` topic: each message is one delivery event
 * (shared/sms/delivery-events.ts). An event that is not one (not JSON, not an SMS event) is
 * logged, counted and dropped, since retrying cannot help; one whose message is not recorded yet
 * fails the invocation, so it is retried (then the dead-letter queue).
 */
export const recordSmsEvents = (deps: DeliveryEventDeps) =>
  topicConsumer('record-sms-events', async (message) => {
    let event;
    try {
      event = parseDeliveryEvent(message);
    } catch (error) {
      if (!(error instanceof MalformedSmsEvent)) throw error;
      logger.warn('sms delivery event dropped', { reason: error.message });
      recordMetric('SmsDeliveryEvents', { event_type: 'none', outcome: 'dropped' });
      return;
    }
    await recordSmsDeliveryEvent(deps, event);
  });
