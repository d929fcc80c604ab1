/**
 * The embedded Stripe emulator of the local runtime (LOCAL-CONTRACT.md, "Payments on one
 * machine"): a plain request handler for the PaymentIntent part of Stripe's v1 API, which the
 * local gateway mounts on the API's own origin under `/_local/stripe/` (tests may also serve
 * it at the root of a port of its own: serveStripeEmulator). Each change of state is posted to
 * the service's webhook route as Stripe's event, signed with STRIPE_WEBHOOK_SECRET. What it
 * emulates and what not: docs/local-runtime.md.
 */
import { formatLine, logger, logOutput } from '../../shared/observability/logger';
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeStripeForm, FormSyntaxError, type Form } from './form';
import { invalidValue, StripeEmulatorError } from './errors';
import { EventSender, type DeliveryPolicy } from './events';
import { IdempotencyStore } from './idempotency';
import { randomId } from './ids';
import { stripeApiVersion } from '../../shared/adapters/stripe/api-version';
import { IntentStore } from './intents';
import { route, type Caller } from './routes';


/** The secret key `npm start` gives the service for the emulator (public by design: local only). */
export const localSecretKey = 'sk_test_local_stripe_emulator_000000';
/** The publishable key a local storefront page (Stripe.js) may use with the emulator. */
export const localPublishableKey = 'pk_test_local_stripe_emulator_000000';

/** One `POST /v1/payment_intents` the emulator received, for tests (test/support/shop-runtime.ts). */
export interface RecordedPaymentIntentRequest {
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  contentType: string | undefined;
  /** The form fields as sent (`metadata[order_id]` etc.). */
  form: Record<string, string>;
  amount: number;
  currency: string;
  metadata: Record<string, string>;
  receiptEmail: string | undefined;
  /** What the emulator answered. */
  status: number;
  paymentIntentId?: string;
  clientSecret?: string;
}

/** Test-only fault injection for creations: `server_error` answers 500, `card_declined` 402. */
export type CreateFault = 'ok' | 'server_error' | 'card_declined';

/** Options of the emulator. */
export interface StripeEmulatorOptions {
  /** The secret key it accepts (default localSecretKey). */
  secretKey?: string;
  /** Where events are posted, read at each delivery (`{base}/api/v1/webhooks/stripe`); undefined: none. */
  webhookUrl?: () => string | undefined;
  /** STRIPE_WEBHOOK_SECRET, read at each delivery. */
  webhookSecret?: () => string | undefined;
  /** Retry schedule of deliveries (events.ts). */
  delivery?: Partial<DeliveryPolicy>;
  /** Log lines (JSON objects) of failed deliveries; default: stdout, as the logger writes them. */
  log?: (line: string) => void;
}

/** An emulator: its request handler, its state and, for tests only, its recorder and fault switch. */
export interface StripeEmulator {
  secretKey: string;
  publishableKey: string;
  intents: IntentStore;
  events: EventSender;
  /**
   * Answers one request; `path` is below the mount (`/v1/...`). `body`: the request's body when
   * the caller has read it already (the standalone server records it first); else it is read here.
   */
  handle(request: IncomingMessage, response: ServerResponse, path: string, rawQuery: string, body?: string): Promise<void>;
  /** Test only (no HTTP route reaches it): every creation received. */
  requests: RecordedPaymentIntentRequest[];
  /** Test only: the successful creation whose metadata carries this order id. */
  requestFor(orderId: string): RecordedPaymentIntentRequest | undefined;
  /** Test only: how creations answer from now on (default `ok`). */
  setMode(mode: CreateFault): void;
  /** Stops the event deliveries (pending retries dropped). */
  stop(): void;
}

/** A request's whole body as UTF-8 text. */
export const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const canonical = (value: unknown): string =>
  typeof value === 'object' && value !== null
    ? Array.isArray(value)
      ? `[${value.map(canonical).join(',')}]`
      : `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`
    : JSON.stringify(value);

/** Creates an emulator (no server: mount `handle`, or serve it with serveStripeEmulator). */
export const createStripeEmulator = (options: StripeEmulatorOptions = {}): StripeEmulator => {
  const secretKey = options.secretKey ?? localSecretKey;
  const publishableKey = localPublishableKey;
  const log = options.log ?? ((line: string) => logOutput.write(line, 'INFO'));
  const intents = new IntentStore();
  const idempotency = new IdempotencyStore();
  const events = new EventSender({
    endpoint: options.webhookUrl ?? (() => undefined),
    secret: options.webhookSecret ?? (() => undefined),
    apiVersion: stripeApiVersion,
    policy: options.delivery,
    log: (level, message, fields) => log(formatLine(level, message, { component: 'stripe-emulator', ...fields })),
  });
  const requests: RecordedPaymentIntentRequest[] = [];
  let mode: CreateFault = 'ok';

  const callerOf = (request: IncomingMessage, params: Form): Caller => {
    const header = request.headers.authorization ?? '';
    let key: string | undefined;
    const bearer = /^Bearer\s+(\S+)$/i.exec(header);
    const basic = /^Basic\s+(\S+)$/i.exec(header);
    if (bearer) key = bearer[1];
    else if (basic) key = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':')[0];
    else if (header !== '') throw new StripeEmulatorError(401, { type: 'invalid_request_error', message: 'Invalid Authorization header.' });
    if (key === undefined && typeof params.key === 'string') key = params.key;
    if (key === undefined || key === '') return { kind: 'client' };
    if (key === secretKey) return { kind: 'secret', key };
    if (key === publishableKey || key.startsWith('pk_test_')) return { kind: 'client', key };
    throw new StripeEmulatorError(401, {
      type: 'invalid_request_error',
      message: `Invalid API Key provided: ${key.length > 8 ? `${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}` : key}`,
    });
  };

  const handle = async (request: IncomingMessage, response: ServerResponse, path: string, rawQuery: string, given?: string): Promise<void> => {
    const method = (request.method ?? 'GET').toUpperCase();
    const body = given ?? (await readBody(request));
    const requestId = `req_${randomId(14)}`;
    const idempotencyKey = method === 'POST' ? (request.headers['idempotency-key'] as string | undefined) : undefined;
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'Request-Id': requestId,
      'Stripe-Version': (request.headers['stripe-version'] as string | undefined) ?? stripeApiVersion,
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Expose-Headers': 'Request-Id, Stripe-Manage-Version, Stripe-Should-Retry, X-Stripe-External-Auth-Required, X-Stripe-Privileged-Session-Required',
      ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}),
    };
    const send = (status: number, text: string, extra: Record<string, string> = {}) => {
      response.writeHead(status, { ...headers, ...extra });
      response.end(text);
    };
    if (method === 'OPTIONS') {
      send(200, '{}', {
        'Access-Control-Allow-Methods': 'GET, POST, HEAD, OPTIONS, DELETE',
        'Access-Control-Allow-Headers': 'Authorization, Content-Type, Idempotency-Key, Stripe-Version, Stripe-Account',
        'Access-Control-Max-Age': '300',
      });
      return;
    }
    let recorded: RecordedPaymentIntentRequest | undefined;
    try {
      let params: Form;
      try {
        params = decodeStripeForm(method === 'GET' || method === 'DELETE' ? rawQuery : body);
      } catch (error) {
        if (error instanceof FormSyntaxError) throw invalidValue(error.param, error.message, 'parameter_unknown');
        throw error;
      }
      const caller = callerOf(request, params);
      const isCreate = method === 'POST' && /^\/v1\/payment_intents\/?$/.test(path);
      if (isCreate) {
        const form = Object.fromEntries(new URLSearchParams(body));
        const metadata = typeof params.metadata === 'object' && !Array.isArray(params.metadata) ? (params.metadata as Record<string, string>) : {};
        recorded = {
          authorization: request.headers.authorization,
          idempotencyKey,
          contentType: request.headers['content-type'],
          form,
          amount: Number(form.amount),
          currency: form.currency ?? '',
          metadata: { ...metadata },
          receiptEmail: form.receipt_email,
          status: 0,
        };
        requests.push(recorded);
      }
      const fingerprint = createHash('sha256').update(`${method} ${path}\n${canonical(params)}`).digest('hex');
      const apiKey = caller.kind === 'secret' ? caller.key : (caller.key ?? '');
      if (idempotencyKey) {
        const saved = idempotency.replay(apiKey, idempotencyKey, fingerprint);
        if (saved) {
          if (recorded) recorded.status = saved.status;
          send(saved.status, saved.body, { 'Idempotent-Replayed': 'true', 'Original-Request': saved.requestId });
          return;
        }
      }
      if (isCreate && mode !== 'ok') {
        // Injected failures (tests only) happen before the endpoint runs: nothing saved for the key.
        const [status, error, extra] =
          mode === 'server_error'
            ? [500, { type: 'api_error', message: 'An unknown error occurred' }, { 'Stripe-Should-Retry': 'false' }]
            : [402, { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' }, {}];
        recorded!.status = status;
        send(status, JSON.stringify({ error }, null, 2), extra);
        return;
      }
      const answer = route(intents, { method, path, params, caller });
      const text = JSON.stringify(answer.body, null, 2);
      if (idempotencyKey) idempotency.save(apiKey, idempotencyKey, fingerprint, { status: answer.status, body: text, requestId });
      if (recorded) {
        recorded.status = answer.status;
        const created = answer.transitions[0]?.intent;
        if (created) {
          recorded.paymentIntentId = created.id;
          recorded.clientSecret = created.client_secret;
        }
      }
      for (const transition of answer.transitions) {
        events.emit(transition.eventType, transition.intent, { id: requestId, idempotencyKey });
      }
      send(answer.status, text);
    } catch (error) {
      if (!(error instanceof StripeEmulatorError)) throw error;
      if (recorded) recorded.status = error.status;
      send(error.status, JSON.stringify({ error: { ...error.body, request_log_url: `https://dashboard.stripe.com/test/logs/${requestId}` } }, null, 2));
    }
  };

  return {
    secretKey,
    publishableKey,
    intents,
    events,
    handle,
    requests,
    requestFor: (orderId) => requests.find((request) => request.metadata.order_id === orderId && request.status === 200),
    setMode: (next) => {
      mode = next;
    },
    stop: () => events.stop(),
  };
};

/** An emulator served at the root of a port of its own (tests, the benchmark, the stripe-node suite). */
export interface ServedStripeEmulator {
  /** e.g. `http://127.0.0.1:40123`: a STRIPE_API_BASE. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Serves an emulator's handler at the root of a free port on 127.0.0.1. */
export const serveStripeEmulator = async (emulator: StripeEmulator): Promise<ServedStripeEmulator> => {
  const server: Server = createServer((request, response) => {
    const url = request.url ?? '/';
    const at = url.indexOf('?');
    emulator.handle(request, response, at === -1 ? url : url.slice(0, at), at === -1 ? '' : url.slice(at + 1)).catch((error: unknown) => {
      logger.error('stripe emulator failed', { component: 'stripe-emulator', error: String(error), id: randomUUID() });
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};

