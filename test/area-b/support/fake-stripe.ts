import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake received, parsed the way Stripe reads it. */
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
  /** What the fake answered. */
  status: number;
  paymentIntentId?: string;
  clientSecret?: string;
}

/** How the fake answers `POST /v1/payment_intents`. */
export type FakeStripeMode = 'ok' | 'server_error' | 'card_declined';

/** A local HTTP server standing in for Stripe's API (just what checkout uses). */
export interface FakeStripe {
  /** e.g. `http://127.0.0.1:40123`: the value of STRIPE_API_BASE. */
  url: string;
  requests: RecordedPaymentIntentRequest[];
  setMode(mode: FakeStripeMode): void;
  /** The recorded request whose metadata carries this order id. */
  requestFor(orderId: string): RecordedPaymentIntentRequest | undefined;
  stop(): Promise<void>;
}

const readBody = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });

const randomToken = (length: number) => randomBytes(length).toString('base64url').replace(/[-_]/g, 'x').slice(0, length);

/**
 * Starts the fake on port 0. `POST /v1/payment_intents` takes the SDK's form-encoded body and
 * answers a PaymentIntent (`client_secret` = `<id>_secret_<random>`); a repeated
 * Idempotency-Key of a successful request gets the first answer again, as Stripe does. In `server_error` mode it
 * answers 500 (with `Stripe-Should-Retry: false`), in `card_declined` mode 402.
 */
export const startFakeStripe = async (): Promise<FakeStripe> => {
  let mode: FakeStripeMode = 'ok';
  const requests: RecordedPaymentIntentRequest[] = [];
  const byIdempotencyKey = new Map<string, { status: number; body: string }>();

  const server: Server = createServer(async (request, response) => {
    const raw = await readBody(request);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      response.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': `req_${randomToken(14)}`, ...headers });
      response.end(text);
    };
    if (request.method !== 'POST' || request.url !== '/v1/payment_intents') {
      send(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${request.method}: ${request.url}).` } });
      return;
    }
    const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
    const form = Object.fromEntries(new URLSearchParams(raw));
    const metadata: Record<string, string> = {};
    for (const [name, value] of Object.entries(form)) {
      const match = /^metadata\[(.+)\]$/.exec(name);
      if (match) metadata[match[1]!] = value;
    }
    const recorded: RecordedPaymentIntentRequest = {
      authorization: request.headers.authorization,
      idempotencyKey,
      contentType: request.headers['content-type'],
      form,
      amount: Number(form.amount),
      currency: form.currency ?? '',
      metadata,
      receiptEmail: form.receipt_email,
      status: 0,
    };
    requests.push(recorded);

    const replay = idempotencyKey ? byIdempotencyKey.get(idempotencyKey) : undefined;
    if (replay) {
      recorded.status = replay.status;
      send(replay.status, replay.body, { 'Idempotent-Replayed': 'true' });
      return;
    }
    let status: number;
    let body: unknown;
    let headers: Record<string, string> = {};
    if (mode === 'server_error') {
      status = 500;
      body = { error: { type: 'api_error', message: 'An unknown error occurred' } };
      headers = { 'Stripe-Should-Retry': 'false' };
    } else if (mode === 'card_declined') {
      status = 402;
      body = { error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' } };
    } else {
      const id = `pi_${randomToken(24)}`;
      const clientSecret = `${id}_secret_${randomToken(25)}`;
      recorded.paymentIntentId = id;
      recorded.clientSecret = clientSecret;
      status = 200;
      body = {
        id,
        object: 'payment_intent',
        amount: recorded.amount,
        amount_capturable: 0,
        amount_received: 0,
        automatic_payment_methods: { enabled: true },
        capture_method: 'automatic',
        client_secret: clientSecret,
        confirmation_method: 'automatic',
        created: Math.floor(Date.now() / 1000),
        currency: recorded.currency,
        description: form.description ?? null,
        livemode: false,
        metadata,
        payment_method: null,
        payment_method_types: ['card'],
        receipt_email: recorded.receiptEmail ?? null,
        status: 'requires_payment_method',
      };
    }
    recorded.status = status;
    const text = JSON.stringify(body);
    // Like Stripe, only a request that succeeded is replayed for its key.
    if (idempotencyKey && status === 200) byIdempotencyKey.set(idempotencyKey, { status, body: text });
    send(status, text, headers);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setMode: (next) => {
      mode = next;
    },
    requestFor: (orderId) => requests.find((request) => request.metadata.order_id === orderId && request.status === 200),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
