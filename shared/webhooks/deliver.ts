import { postSignedWebhook, type PostResult } from '../callbacks/signed-post';
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

/** A failed signed POST as a delivery records it: the reason, with its detail where it says more. */
const failure = (result: Extract<PostResult, { delivered: false }>): string => {
  switch (result.reason) {
    case 'http_error':
    case 'redirect_not_followed':
      return result.reason;
    case 'refused_url':
      return `refused_url: ${result.detail.replaceAll('callback_url', 'url')}`;
    case 'connection_failed':
      return `connection: ${result.detail}`;
    default:
      return `${result.reason}: ${result.detail}`;
  }
};

/**
 * POSTs one event to a subscription's URL through the service's one signed POST
 * (shared/callbacks/signed-post.ts: URL and address checked again, no redirects), signed with
 * every current secret (`webhook-id` = the event id, the same on every attempt;
 * `webhook-timestamp` = now). Never throws for a failed delivery: it is a result.
 */
export const deliverEvent = async (
  url: string,
  event: LifecycleEvent,
  secrets: readonly string[],
  settings: DeliverySettings,
  nowMs: number,
): Promise<DeliveryOutcome> => {
  const result = await postSignedWebhook({
    url,
    id: event.id,
    body: JSON.stringify(event),
    secrets,
    timestampSeconds: Math.floor(nowMs / 1000),
    userAgent: 'sim-service-webhooks/1.0',
    allowedHosts: settings.allowedHosts,
    connectTimeoutMs: settings.connectTimeoutMs,
    totalTimeoutMs: settings.totalTimeoutMs,
    ...(settings.extraCaCertificates ? { extraCaCertificates: settings.extraCaCertificates } : {}),
  });
  if (result.delivered) return result;
  return { delivered: false, error: failure(result), ...(result.httpStatus !== undefined ? { httpStatus: result.httpStatus } : {}) };
};
