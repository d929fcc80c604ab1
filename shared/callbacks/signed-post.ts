import { OutboundError, outboundPost } from '../adapters/https/outbound-post';
import { trustedCa } from '../adapters/https/trusted-ca';
import { isAllowedHost } from './allowed-hosts';
import { CallbackUrlRefused, parseCallbackUrl } from './callback-url';
import { publicOnlyLookup } from './resolve-host';
import { webhookHeaders } from './signing';

/** Why a signed POST did not deliver. */
export type PostFailure =
  | 'refused_url'
  | 'refused_address'
  | 'redirect_not_followed'
  | 'http_error'
  | 'connect_timeout'
  | 'timeout'
  | 'connection_failed';

/** The result of one signed POST: delivered (a 2xx), or failed with a reason. */
export type PostResult =
  | { delivered: true; httpStatus: number }
  | { delivered: false; reason: PostFailure; detail: string; httpStatus?: number };

/** One Standard Webhooks POST to a caller-supplied URL. */
export interface SignedPost {
  /** The receiver's URL as the caller gave it (checked again here). */
  url: string;
  /** `webhook-id`: the same on every attempt of the same message. */
  id: string;
  /** The raw JSON body, signed as is. */
  body: string;
  /** One `v1,` signature per secret (two during a rotation). */
  secrets: readonly string[];
  timestampSeconds: number;
  userAgent: string;
  /** Hosts exempt from the public-address rule (CALLBACK_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  connectTimeoutMs: number;
  totalTimeoutMs: number;
  /** A PEM file of extra trusted CAs (NODE_EXTRA_CA_CERTS), beside Node's own. */
  extraCaCertificates?: string;
}

/** Response bytes read from a receiver; the rest is discarded. */
export const maxReceiverResponseBytes = 1024;

const failureKinds: Record<OutboundError['kind'], PostFailure> = {
  refused_address: 'refused_address',
  connect_timeout: 'connect_timeout',
  timeout: 'timeout',
  connection: 'connection_failed',
};

/**
 * POSTs a signed JSON body to a caller's URL, as both outbound webhooks of the service do (the
 * delivery receipt to callback_url, the lifecycle events to a subscription): the Standard
 * Webhooks headers over the raw body; the URL checked again (HTTPS, no credentials, public
 * address); the connection only to an address the public-only lookup accepted, unless
 * CALLBACK_ALLOWED_HOSTS exempts the host; no redirects followed; at most 1 KiB of the answer
 * read. Never throws for a failed delivery: it is a result.
 */
export const postSignedWebhook = async (post: SignedPost): Promise<PostResult> => {
  let url: URL;
  try {
    url = parseCallbackUrl(post.url, post.allowedHosts);
  } catch (error) {
    if (error instanceof CallbackUrlRefused) return { delivered: false, reason: 'refused_url', detail: error.detail };
    throw error;
  }
  let response;
  try {
    response = await outboundPost({
      url,
      headers: {
        'content-type': 'application/json',
        'user-agent': post.userAgent,
        ...webhookHeaders(post.secrets, post.id, post.timestampSeconds, post.body),
      },
      body: post.body,
      connectTimeoutMs: post.connectTimeoutMs,
      totalTimeoutMs: post.totalTimeoutMs,
      maxResponseBytes: maxReceiverResponseBytes,
      ...(isAllowedHost(url, post.allowedHosts) ? {} : { lookup: publicOnlyLookup }),
      ca: trustedCa(post.extraCaCertificates),
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
