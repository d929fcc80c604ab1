/**
 * The emulator's webhook endpoint: each change of state becomes a Stripe event, signed as Stripe
 * signs (`Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) and posted
 * over real HTTP; an answer other than 2xx (or none) is retried with exponential backoff, a
 * bounded number of times (Stripe retries for 3 days; a local run gives up sooner, logged).
 */
import { createHmac } from 'node:crypto';
import { stripeId } from './ids';

/** A Stripe event object (the fields Stripe sends for a snapshot event). */
export interface StripeEvent {
  id: string;
  object: 'event';
  api_version: string;
  created: number;
  data: { object: unknown; previous_attributes?: Record<string, unknown> };
  livemode: false;
  pending_webhooks: number;
  request: { id: string | null; idempotency_key: string | null };
  type: string;
}

/** The `Stripe-Signature` header of a payload, as Stripe computes it. */
export const stripeSignature = (payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string =>
  `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex')}`;

/** How deliveries are retried. */
export interface DeliveryPolicy {
  /** Wait before the first retry; doubled each time. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Per attempt. */
  timeoutMs: number;
}

/** Local default: 1 s, 2 s, 4 s ... up to 60 s, 10 attempts (about 5 minutes in all). */
export const defaultDeliveryPolicy: DeliveryPolicy = { initialDelayMs: 1000, maxDelayMs: 60_000, maxAttempts: 10, timeoutMs: 10_000 };

/** One delivery attempt's outcome, kept for tests and logs. */
export interface DeliveryRecord {
  eventId: string;
  type: string;
  attempt: number;
  /** HTTP status, or undefined when there was no answer. */
  status?: number;
  error?: string;
}

/** Options of the event sender. */
export interface EventSenderOptions {
  /** Where events go: `{base}/api/v1/webhooks/stripe`; undefined sends nothing (read at each send). */
  endpoint: () => string | undefined;
  /** STRIPE_WEBHOOK_SECRET (read at each send). */
  secret: () => string | undefined;
  apiVersion: string;
  policy?: Partial<DeliveryPolicy>;
  log?: (level: 'INFO' | 'WARN', message: string, fields: Record<string, unknown>) => void;
}

/** Sends events; stop() cancels the pending retries and in-flight posts. */
export class EventSender {
  readonly deliveries: DeliveryRecord[] = [];
  readonly events: StripeEvent[] = [];
  private readonly policy: DeliveryPolicy;
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private readonly inFlight = new Set<AbortController>();
  private readonly pending = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly options: EventSenderOptions) {
    this.policy = { ...defaultDeliveryPolicy, ...options.policy };
  }

  /** Builds the event of a change of state and starts delivering it. */
  emit(type: string, object: unknown, request: { id: string; idempotencyKey?: string }, previous?: Record<string, unknown>): StripeEvent {
    const event: StripeEvent = {
      id: stripeId('evt'),
      object: 'event',
      api_version: this.options.apiVersion,
      created: Math.floor(Date.now() / 1000),
      data: { object, ...(previous ? { previous_attributes: previous } : {}) },
      livemode: false,
      pending_webhooks: 1,
      request: { id: request.id, idempotency_key: request.idempotencyKey ?? null },
      type,
    };
    this.events.push(event);
    this.attempt(event, JSON.stringify(event, null, 2), 1);
    return event;
  }

  /** Resolves when no delivery is in flight or waiting for a retry (tests). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /** Stops: no further attempts, in-flight posts aborted. */
  stop(): void {
    this.stopped = true;
    for (const [timer, wake] of this.timers) {
      clearTimeout(timer);
      wake();
    }
    this.timers.clear();
    for (const controller of this.inFlight) controller.abort();
  }

  private attempt(event: StripeEvent, payload: string, attempt: number): void {
    const endpoint = this.options.endpoint();
    const secret = this.options.secret();
    if (this.stopped || !endpoint || !secret) return;
    const controller = new AbortController();
    this.inFlight.add(controller);
    const timeout = setTimeout(() => controller.abort(), this.policy.timeoutMs);
    const delivery = (async () => {
      const record: DeliveryRecord = { eventId: event.id, type: event.type, attempt };
      try {
        const response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json; charset=utf-8',
            'User-Agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
            'Stripe-Signature': stripeSignature(payload, secret),
          },
          body: payload,
          signal: controller.signal,
        });
        await response.arrayBuffer().catch(() => undefined);
        record.status = response.status;
      } catch (error) {
        record.error = (error as Error).message;
      } finally {
        clearTimeout(timeout);
        this.inFlight.delete(controller);
      }
      this.deliveries.push(record);
      const delivered = record.status !== undefined && record.status >= 200 && record.status < 300;
      if (delivered || this.stopped) return;
      if (attempt >= this.policy.maxAttempts) {
        this.options.log?.('WARN', 'stripe emulator: event not delivered, giving up', { ...record, endpoint });
        return;
      }
      const delay = Math.min(this.policy.initialDelayMs * 2 ** (attempt - 1), this.policy.maxDelayMs);
      this.options.log?.('WARN', 'stripe emulator: event not delivered, retrying', { ...record, endpoint, retryInMs: delay });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          resolve();
        }, delay);
        // stop() clears the timer and wakes this up, so idle() settles.
        this.timers.set(timer, resolve);
      });
      this.attempt(event, payload, attempt + 1);
    })();
    this.pending.add(delivery);
    void delivery.finally(() => this.pending.delete(delivery));
  }
}
