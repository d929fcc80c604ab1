import { OutboundError, outboundPost } from '../adapters/https/outbound-post';
import { trustedCa } from '../adapters/https/trusted-ca';
import { isAllowedHost } from '../callbacks/allowed-hosts';
import { CallbackUrlRefused, parseCallbackUrl } from '../callbacks/callback-url';
import { maxReceiverResponseBytes } from '../callbacks/forwarder';
import { publicOnlyLookup } from '../callbacks/resolve-host';
import { webhookSignature } from '../callbacks/signing';
import type { LifecycleEvent } from './event-types';

/** How one delivery is made. */
export interface DeliverySettings {
  /** Hosts exempt from the public-address rule (CALLBACK_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  connectTimeoutMs: number;
  /** 2xx within this is success (10 s). */
  totalTimeoutMs: number;
  /** A PEM file of extra trusted CAs (NODE_EXTRA_CA_CERTS). */
  extraCaCertificates?: string;
}

/** The outcome of one attempt: a 2xx, or why not. */
export type DeliveryOutcome = { delivered: true; httpStatus: number } | { delivered: false; error: string; httpStatus?: number };

/**
 * The `webhook-signature` header: one `v1,` signature per secret, space-separated (Standard
 * Webhooks), so a receiver holding either the new or the previous secret verifies during the
 * 24 hours after a rotation.
 */
export const signatureHeader = (secrets: readonly string[], id: string, timestampSeconds: number, body: string): string =>
  secrets.map((secret) => webhookSignature(secret, id, timestampSeconds, body)).join(' ');

/**
 * POSTs one event to a subscription's URL, signed the Standard Webhooks way over the raw body
 * (`webhook-id` = the event id, the same on every attempt; `webhook-timestamp` = now). The URL
 * is checked again (HTTPS, no credentials, public address) and the connection goes only to an
 * address the public-only lookup accepted, unless CALLBACK_ALLOWED_HOSTS exempts the host; no
 * redirects; 5 s to connect, 10 s in all. Never throws for a failed delivery: it is a result.
 */
export const deliverEvent = async (
  url: string,
  event: LifecycleEvent,
  secrets: readonly string[],
  settings: DeliverySettings,
  nowMs: number,
): Promise<DeliveryOutcome> => {
  let target: URL;
  try {
    target = parseCallbackUrl(url, settings.allowedHosts);
  } catch (error) {
    if (error instanceof CallbackUrlRefused) return { delivered: false, error: `refused_url: ${error.detail.replaceAll('callback_url', 'url')}` };
    throw error;
  }
  const body = JSON.stringify(event);
  const timestamp = Math.floor(nowMs / 1000);
  try {
    const response = await outboundPost({
      url: target,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'sim-service-webhooks/1.0',
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, event.id, timestamp, body),
      },
      body,
      connectTimeoutMs: settings.connectTimeoutMs,
      totalTimeoutMs: settings.totalTimeoutMs,
      maxResponseBytes: maxReceiverResponseBytes,
      ...(isAllowedHost(target, settings.allowedHosts) ? {} : { lookup: publicOnlyLookup }),
      ca: trustedCa(settings.extraCaCertificates),
    });
    if (response.status >= 200 && response.status <= 299) return { delivered: true, httpStatus: response.status };
    return { delivered: false, error: response.status >= 300 && response.status <= 399 ? 'redirect_not_followed' : 'http_error', httpStatus: response.status };
  } catch (error) {
    if (error instanceof OutboundError) return { delivered: false, error: `${error.kind}: ${error.message}` };
    return { delivered: false, error: `connection: ${String(error)}` };
  }
};
