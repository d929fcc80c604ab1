import type { FunctionConfig } from '../config/function-config';
import { getSecret } from '../config/secrets';
import { appendLogKeys } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { sqsConsumer } from '../queues/consumer';
import { parseAllowedHosts } from '../callbacks/allowed-hosts';
import { forwardReceipt, type ForwarderSettings } from '../callbacks/forwarder';
import { parseQueuedReceipt } from '../callbacks/receipt-queue';

/** What the forward-receipt consumer needs: the forwarder's settings and the master signing secret. */
export interface ForwardConsumerDeps extends Omit<ForwarderSettings, 'signingSecret'> {
  /** The CALLBACK_SIGNING_SECRET secret (read per message: secrets rotate), undefined when not configured. */
  signingSecret: () => Promise<string | undefined>;
}

/** The deps of the forward-receipt function, from its configuration (read once at init). */
export const forwardConsumerDeps = (config: FunctionConfig<'forward-receipt'>): ForwardConsumerDeps => ({
  signingSecret: () => getSecret('CALLBACK_SIGNING_SECRET'),
  allowedHosts: parseAllowedHosts(config.allowedCallbackHosts),
  connectTimeoutMs: config.connectTimeoutMs,
  totalTimeoutMs: config.totalTimeoutMs,
  extraCaCertificates: config.extraCaCertificates,
});

const hostOf = (url: string): string | null => {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
};

/**
 * Consumer of the callbacks queue (spec A4, Events 1): posts each delivery receipt to its
 * callback_url, signed. A failed forward is logged as one JSON line and not retried (the
 * record counts as processed). Only a message the consumer cannot work on at all (malformed,
 * or no signing secret configured) fails, so it is retried and then dead-lettered.
 */
export const forwardReceiptConsumer = (deps: ForwardConsumerDeps) =>
  sqsConsumer('forward-receipt', async (record) => {
    const item = parseQueuedReceipt(record.body);
    appendLogKeys({ message_id: item.receipt.message_id });
    const signingSecret = await deps.signingSecret();
    if (!signingSecret) throw new Error('CALLBACK_SIGNING_SECRET is not configured');
    const result = await forwardReceipt(item, { ...deps, signingSecret });
    const fields = { status: item.receipt.status, callback_host: hostOf(item.callback_url) };
    if (result.delivered) {
      logger.info('receipt forwarded', { ...fields, http_status: result.httpStatus });
      recordMetric('CallbacksForwarded');
    } else {
      logger.warn('receipt forward failed', {
        ...fields,
        reason: result.reason,
        detail: result.detail,
        ...(result.httpStatus !== undefined ? { http_status: result.httpStatus } : {}),
      });
      recordMetric('CallbacksFailed');
    }
  });
