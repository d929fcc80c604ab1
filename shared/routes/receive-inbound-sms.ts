/**
 * The consumer of the `sms-inbound` topic (shared/topology/topics.ts; issue #21): inbound
 * (two-way) SMS. It is subscribed to its SNS topic and invoked with SNS events, deployed and
 * locally (local/topics.ts) alike.
 */
import type { FunctionConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { topicConsumer } from '../queues/topic-consumer';
import { MalformedInboundSms, parseInboundSms, receiveInboundSms, type InboundDeps } from '../sms/inbound';

/** The deps of the receive-inbound-sms function, from its configuration (read once at init). */
export const inboundDeps = (config: FunctionConfig<'receive-inbound-sms'>): InboundDeps => ({
  table: { db: documentClient(config), tableName: config.tableName },
  now: () => new Date(),
});

/**
 * Consumer of the `sms-inbound` topic: each message is one inbound SMS (shared/sms/inbound.ts),
 * stored once for the SIM whose MSISDN sent it; unknown numbers and messages that are not
 * inbound SMS are logged, counted and dropped.
 */
export const receiveInboundMessages = (deps: InboundDeps) =>
  topicConsumer('receive-inbound-sms', async (message) => {
    let inbound;
    try {
      inbound = parseInboundSms(message);
    } catch (error) {
      if (!(error instanceof MalformedInboundSms)) throw error;
      logger.warn('inbound sms dropped', { reason: error.message });
      recordMetric('InboundSms', { outcome: 'malformed' });
      return;
    }
    await receiveInboundSms(deps, inbound);
  });
