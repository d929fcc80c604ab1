import type { QueuedReceipt } from './receipt-queue';
import { postSignedWebhook, type PostResult } from './signed-post';
import { customerWebhookSecret, receiptWebhookId } from './signing';

/** Settings of the receipt forwarder. */
export interface ForwarderSettings {
  /** The master signing secret (CALLBACK_SIGNING_SECRET); each customer's is derived from it. */
  signingSecret: string;
  /** Hosts exempt from the public-address rule (CALLBACK_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  /** Default 5000. */
  connectTimeoutMs?: number;
  /** Default 10000. */
  totalTimeoutMs?: number;
  /** Clock (for webhook-timestamp). */
  now?: () => Date;
  /** A PEM file of extra trusted CAs (NODE_EXTRA_CA_CERTS), beside Node's own. */
  extraCaCertificates?: string;
}

/** The result of one forward: delivered (a 2xx), or failed with a reason (./signed-post.ts). */
export type ForwardResult = PostResult;

/**
 * POSTs one delivery receipt to its callback_url (spec A4): the receipt JSON, signed the
 * Standard Webhooks way with the sending customer's secret, through the service's one signed
 * POST (./signed-post.ts: URL and address checked again, no redirects, 5 s to connect, 10 s
 * in all). Never throws for a failed delivery: the spec says a failed forward is logged and
 * not retried, so it is a result.
 */
export const forwardReceipt = (item: QueuedReceipt, settings: ForwarderSettings): Promise<ForwardResult> =>
  postSignedWebhook({
    url: item.callback_url,
    id: receiptWebhookId(item.receipt.message_id, item.receipt.status),
    body: JSON.stringify(item.receipt),
    secrets: [customerWebhookSecret(settings.signingSecret, item.customer_id)],
    timestampSeconds: Math.floor((settings.now?.() ?? new Date()).getTime() / 1000),
    userAgent: 'sim-service-receipts/1.0',
    allowedHosts: settings.allowedHosts,
    connectTimeoutMs: settings.connectTimeoutMs ?? 5000,
    totalTimeoutMs: settings.totalTimeoutMs ?? 10_000,
    ...(settings.extraCaCertificates ? { extraCaCertificates: settings.extraCaCertificates } : {}),
  });
