import { OutboundError, outboundPost } from '../adapters/https/outbound-post';
import { trustedCa } from '../adapters/https/trusted-ca';
import { CallbackUrlRefused, parseCallbackUrl } from './callback-url';
import { isAllowedHost } from './allowed-hosts';
import type { QueuedReceipt } from './receipt-queue';
import { publicOnlyLookup } from './resolve-host';
import { customerWebhookSecret, receiptWebhookId, webhookHeaders } from './signing';

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

/** Why a forward failed. */
export type ForwardFailure =
  | 'refused_url'
  | 'refused_address'
  | 'redirect_not_followed'
  | 'http_error'
  | 'connect_timeout'
  | 'timeout'
  | 'connection_failed';

/** The result of one forward: delivered (a 2xx), or failed with a reason. */
export type ForwardResult =
  | { delivered: true; httpStatus: number }
  | { delivered: false; reason: ForwardFailure; detail: string; httpStatus?: number };

/** Response bytes read from a receiver; the rest is discarded. */
export const maxReceiverResponseBytes = 1024;

const failureKinds: Record<OutboundError['kind'], ForwardFailure> = {
  refused_address: 'refused_address',
  connect_timeout: 'connect_timeout',
  timeout: 'timeout',
  connection: 'connection_failed',
};

/**
 * POSTs one delivery receipt to its callback_url (spec A4): the receipt JSON, signed the
 * Standard Webhooks way with the sending customer's secret. The URL is checked again (HTTPS,
 * no credentials, public address) and the connection goes only to an address that the
 * public-only lookup accepted (unless the host is allowed); redirects are not followed;
 * 5 s to connect, 10 s in all; at most 1 KiB of the answer is read. Never throws for a failed
 * delivery: the spec says a failed forward is logged and not retried, so it is a result.
 */
export const forwardReceipt = async (item: QueuedReceipt, settings: ForwarderSettings): Promise<ForwardResult> => {
  let url: URL;
  try {
    url = parseCallbackUrl(item.callback_url, settings.allowedHosts);
  } catch (error) {
    if (error instanceof CallbackUrlRefused) return { delivered: false, reason: 'refused_url', detail: error.detail };
    throw error;
  }
  const exempt = isAllowedHost(url, settings.allowedHosts);
  const body = JSON.stringify(item.receipt);
  const timestamp = Math.floor((settings.now?.() ?? new Date()).getTime() / 1000);
  const secret = customerWebhookSecret(settings.signingSecret, item.customer_id);
  const id = receiptWebhookId(item.receipt.message_id, item.receipt.status);
  let response;
  try {
    response = await outboundPost({
      url,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'sim-service-receipts/1.0',
        ...webhookHeaders(secret, id, timestamp, body),
      },
      body,
      connectTimeoutMs: settings.connectTimeoutMs ?? 5000,
      totalTimeoutMs: settings.totalTimeoutMs ?? 10_000,
      maxResponseBytes: maxReceiverResponseBytes,
      ...(exempt ? {} : { lookup: publicOnlyLookup }),
      ca: trustedCa(settings.extraCaCertificates),
    });
  } catch (error) {
    if (error instanceof OutboundError) return { delivered: false, reason: failureKinds[error.kind], detail: error.message };
    return { delivered: false, reason: 'connection_failed', detail: String(error) };
  }
  if (response.status >= 200 && response.status <= 299) return { delivered: true, httpStatus: response.status };
  if (response.status >= 300 && response.status <= 399) {
    const location = response.headers.location;
    return {
      delivered: false,
      reason: 'redirect_not_followed',
      detail: `answered ${response.status}${location ? ` to ${location}` : ''}; redirects are not followed`,
      httpStatus: response.status,
    };
  }
  return { delivered: false, reason: 'http_error', detail: `answered ${response.status}`, httpStatus: response.status };
};
