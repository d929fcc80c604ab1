import https from 'node:https';
import { outboundPost, type OutboundResponse } from '../https/outbound-post';
import { stripeForm, type StripeFormValue } from './form-encoding';

import { stripeApiVersion } from './api-version';

export { stripeApiVersion };

/** How requests to Stripe are limited and retried. */
export interface StripeRequestPolicy {
  /** Per attempt: until the connection is up, and until the whole answer is read. */
  timeoutMs: number;
  /** Attempts after the first (stripe-node's `maxNetworkRetries`). */
  maxNetworkRetries: number;
  /** Wait before a retry. */
  retryDelayMs: number;
  /** Answer bytes kept; a longer answer is an error (a PaymentIntent is a few KiB). */
  maxResponseBytes: number;
}

/**
 * What the service configured stripe-node with (`timeout: 5_000`, `maxNetworkRetries: 1`) and
 * the SDK's first retry delay (0.5 s, its `initialNetworkRetryDelay`). One difference: the
 * SDK's timeout was the socket's idle time, here it bounds each attempt as a whole.
 */
export const defaultStripeRequestPolicy: StripeRequestPolicy = {
  timeoutMs: 5_000,
  maxNetworkRetries: 1,
  retryDelayMs: 500,
  maxResponseBytes: 1024 * 1024,
};

/** What Stripe says in an error answer: `{"error": {type, code, message, param}}`. */
interface StripeErrorBody {
  type?: string;
  code?: string;
  message?: string;
  param?: string;
}

/**
 * A Stripe request that failed: Stripe answered an error (`statusCode`, with Stripe's `type`,
 * `code`, `param` when it sent them) or did not answer at all (no `statusCode`; the cause is
 * the connection failure). The field names are stripe-node's, so logs read as before.
 */
export class StripeApiError extends Error {
  override readonly name = 'StripeApiError';

  constructor(
    message: string,
    readonly details: {
      statusCode?: number;
      type?: string;
      code?: string;
      param?: string;
      requestId?: string;
      /** Requests sent, retries included. */
      attempts?: number;
    },
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  get statusCode() {
    return this.details.statusCode;
  }
  get type() {
    return this.details.type;
  }
  get code() {
    return this.details.code;
  }
  get param() {
    return this.details.param;
  }
  get requestId() {
    return this.details.requestId;
  }
}

/** Where a Stripe-compatible API is: STRIPE_API_BASE (its path, if any, prefixes `/v1/...`), else Stripe itself. */
export const stripeUrl = (apiBase: string | undefined, path: string): URL => {
  const base = apiBase || 'https://api.stripe.com';
  return new URL(path.replace(/^\/+/, ''), base.endsWith('/') ? base : `${base}/`);
};

/** Stripe's own rule for a retry, as stripe-node applies it: its hint first, then 409 and 5xx. */
const retryable = (response: OutboundResponse | undefined): boolean => {
  if (!response) return true;
  const hint = response.headers['stripe-should-retry'];
  if (hint === 'false') return false;
  if (hint === 'true') return true;
  return response.status === 409 || response.status >= 500;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const header = (response: OutboundResponse, name: string): string | undefined => {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** The JSON object of an answer, or the StripeApiError it stands for. */
const readAnswer = (response: OutboundResponse, attempts: number): Record<string, unknown> => {
  const statusCode = response.status;
  const requestId = header(response, 'request-id');
  let json: unknown;
  try {
    if (response.truncated) throw new Error('answer too long');
    json = JSON.parse(response.body.toString('utf8'));
  } catch (error) {
    throw new StripeApiError(`Invalid JSON received from the Stripe API (HTTP ${statusCode})`, { statusCode, requestId, attempts }, { cause: error });
  }
  const error = (json as { error?: unknown } | null)?.error;
  if (error !== undefined && error !== null) {
    const body: StripeErrorBody = typeof error === 'object' ? (error as StripeErrorBody) : { type: String(error) };
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    throw new StripeApiError(text(body.message) ?? `Stripe answered HTTP ${statusCode}`, {
      statusCode,
      type: text(body.type),
      code: text(body.code),
      param: text(body.param),
      requestId,
      attempts,
    });
  }
  if (statusCode < 200 || statusCode >= 300 || typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new StripeApiError(`Unexpected answer from the Stripe API (HTTP ${statusCode})`, { statusCode, requestId, attempts });
  }
  return json as Record<string, unknown>;
};

/** One Stripe v1 POST: the path, its form fields, the idempotency key. */
export interface StripePost {
  secretKey: string;
  apiBase?: string;
  path: string;
  fields: Record<string, StripeFormValue>;
  idempotencyKey: string;
}

/**
 * POSTs to Stripe's v1 API as stripe-node did, without its 240 KiB: a form body in Stripe's
 * bracket syntax, `Authorization: Bearer <secret key>`, the pinned Stripe-Version, the caller's
 * Idempotency-Key on every attempt (so a retry can never create a second object), pooled
 * keep-alive connections (Node's global agents). A connection failure, a timeout, a 409 or a
 * 5xx is retried per the policy unless Stripe says `Stripe-Should-Retry: false` (and an answer
 * with `Stripe-Should-Retry: true` is retried). Resolves with the answer's JSON object; rejects
 * with StripeApiError.
 */
export const stripePost = async (request: StripePost, policy: StripeRequestPolicy = defaultStripeRequestPolicy): Promise<Record<string, unknown>> => {
  const url = stripeUrl(request.apiBase, request.path);
  const secure = url.protocol === 'https:';
  const post = () =>
    outboundPost({
      url,
      headers: {
        authorization: `Bearer ${request.secretKey}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        'stripe-version': stripeApiVersion,
        'idempotency-key': request.idempotencyKey,
        'user-agent': 'sim-checkout-service',
      },
      body: stripeForm(request.fields),
      connectTimeoutMs: policy.timeoutMs,
      totalTimeoutMs: policy.timeoutMs,
      maxResponseBytes: policy.maxResponseBytes,
      // node:http from Node's built-ins, not an ES module import (its facade loads Node's bundled
      // undici at every cold start: shared/adapters/https/outbound-post.ts).
      agent: secure ? https.globalAgent : process.getBuiltinModule('node:http').globalAgent,
    });
  for (let attempt = 1; ; attempt += 1) {
    let response: OutboundResponse | undefined;
    let failure: unknown;
    try {
      response = await post();
    } catch (error) {
      failure = error;
    }
    if (attempt <= policy.maxNetworkRetries && retryable(response)) {
      await sleep(policy.retryDelayMs);
      continue;
    }
    if (!response) {
      const reason = failure instanceof Error ? failure.message : String(failure);
      throw new StripeApiError(`No answer from the Stripe API after ${attempt} attempt(s): ${reason}`, { attempts: attempt }, { cause: failure });
    }
    return readAnswer(response, attempt);
  }
};
