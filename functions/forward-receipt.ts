import { getSecret } from '../shared/config/secrets';
import { forwardReceipt } from '../shared/callbacks/forwarder';
import { parseQueuedReceipt } from '../shared/callbacks/receipt-queue';
import { sqsConsumer } from '../shared/queues/consumer';
import { readSmsConfig } from '../shared/sms/config';

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
export const handler = sqsConsumer('forward-receipt', async (record) => {
  const item = parseQueuedReceipt(record.body);
  const signingSecret = await getSecret('CALLBACK_SIGNING_SECRET');
  if (!signingSecret) throw new Error('CALLBACK_SIGNING_SECRET is not configured');
  const config = readSmsConfig();
  const result = await forwardReceipt(item, {
    signingSecret,
    allowedHosts: config.allowedCallbackHosts,
    connectTimeoutMs: config.callbackConnectTimeoutMs,
    totalTimeoutMs: config.callbackTotalTimeoutMs,
  });
  const fields = {
    message_id: item.receipt.message_id,
    status: item.receipt.status,
    callback_host: hostOf(item.callback_url),
  };
  if (result.delivered) {
    console.log(JSON.stringify({ level: 'INFO', message: 'receipt forwarded', ...fields, httpStatus: result.httpStatus }));
  } else {
    console.warn(
      JSON.stringify({
        level: 'WARN',
        message: 'receipt forward failed',
        ...fields,
        reason: result.reason,
        detail: result.detail,
        ...(result.httpStatus !== undefined ? { httpStatus: result.httpStatus } : {}),
      }),
    );
  }
});
