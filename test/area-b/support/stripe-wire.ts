import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request exactly as it reached the server. */
export interface WireRequest {
  method: string;
  path: string;
  /** Lower-cased names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The raw body. */
  body: string;
}

/** What the server answers to one request: a status, a JSON body (or raw text), headers; or no answer at all. */
export type WireAnswer =
  | { status: number; body: unknown; headers?: Record<string, string> }
  | { hang: true };

/**
 * A local HTTP server on port 0 that speaks Stripe's wire format as far as a test scripts it:
 * each request is recorded whole and answered by `respond` (by default a PaymentIntent, as
 * Stripe answers `POST /v1/payment_intents`). The adapter tests run against it; pointing them
 * at the Stripe emulator later only needs its URL and a way to script an error.
 */
export interface StripeWire {
  /** The value of STRIPE_API_BASE. */
  url: string;
  requests: WireRequest[];
  /** Answers every following request with this function (the request and its 1-based number). */
  respond(answer: (request: WireRequest, count: number) => WireAnswer): void;
  stop(): Promise<void>;
}

/** A PaymentIntent, as Stripe answers its creation, for the form fields sent. */
export const paymentIntentAnswer = (request: WireRequest, id = 'pi_3WireTest0000000000000001'): WireAnswer => {
  const form = new URLSearchParams(request.body);
  const metadata = Object.fromEntries([...form].filter(([name]) => name.startsWith('metadata[')).map(([name, value]) => [name.slice(9, -1), value]));
  return {
    status: 200,
    headers: { 'Request-Id': 'req_wire0001' },
    body: {
      id,
      object: 'payment_intent',
      amount: Number(form.get('amount')),
      currency: form.get('currency'),
      client_secret: `${id}_secret_WireTestSecret0000000001`,
      description: form.get('description'),
      livemode: false,
      metadata,
      receipt_email: form.get('receipt_email'),
      status: 'requires_payment_method',
    },
  };
};

/** Stripe's error answer: `{"error": {...}}` with its Request-Id. */
export const stripeErrorAnswer = (status: number, error: Record<string, string>, headers: Record<string, string> = {}): WireAnswer => ({
  status,
  headers: { 'Request-Id': `req_err${status}`, ...headers },
  body: { error },
});

const send = (response: ServerResponse, answer: Exclude<WireAnswer, { hang: true }>) => {
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  response.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
  response.end(text);
};

/** Starts the server on 127.0.0.1, port 0. */
export const startStripeWire = async (): Promise<StripeWire> => {
  const requests: WireRequest[] = [];
  let respond: (request: WireRequest, count: number) => WireAnswer = (request) => paymentIntentAnswer(request);
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const request: WireRequest = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const answer = respond(request, requests.length);
      if (!('hang' in answer)) send(response, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond: (next) => {
      respond = next;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
