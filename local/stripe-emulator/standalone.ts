import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logger } from '../../shared/observability/logger';
import { createStripeEmulator, readBody, type StripeEmulator, type StripeEmulatorOptions } from './index';

/** One request exactly as it reached the standalone emulator. */
export interface WireRequest {
  method: string;
  /** The path with its query. */
  path: string;
  /** Lower-cased names, as node:http gives them. */
  headers: IncomingHttpHeaders;
  /** The raw body. */
  body: string;
}

/** A scripted answer: a status, a JSON body (or raw text) and headers; or no answer at all. */
export type ScriptedAnswer = { status: number; body: unknown; headers?: Record<string, string> } | { hang: true };

/** Answers a request (and its 1-based number among those recorded in `wire`) instead of the emulator. */
export type StripeScript = (request: WireRequest, count: number) => ScriptedAnswer;

/** An emulator with its own server: the emulator's state and hooks, its URL, and stop(). */
export interface StandaloneStripeEmulator extends StripeEmulator {
  /** e.g. `http://127.0.0.1:40123`: the value of STRIPE_API_BASE. */
  url: string;
  /** Test only: every request as it reached the server, whole (a test may empty it). */
  wire: WireRequest[];
  /**
   * Test only: answer every following request with `script` instead of the emulator (an
   * adapter test's exact error, a hang, a malformed answer); undefined gives them back to it.
   */
  script(next: StripeScript | undefined): void;
  /** Stops the event deliveries and the server. */
  stop(): Promise<void>;
}

const answerScripted = (response: ServerResponse, answer: ScriptedAnswer): void => {
  if ('hang' in answer) return;
  response.writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers });
  response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
};

/**
 * Creates an emulator and serves it at the root of a free port (the test suites, the fuzzer
 * and the benchmark: STRIPE_API_BASE without a path, as stripe-node wants it), recording every
 * request whole and answering from a test's script when one is set: the suites' one Stripe
 * stand-in, for the service's flows and for the adapter's exact wire tests alike.
 */
export const startStandaloneStripeEmulator = async (options: StripeEmulatorOptions = {}): Promise<StandaloneStripeEmulator> => {
  const emulator = createStripeEmulator(options);
  const wire: WireRequest[] = [];
  let script: StripeScript | undefined;
  const server: Server = createServer((request, response) => {
    const url = request.url ?? '/';
    const at = url.indexOf('?');
    readBody(request)
      .then((body) => {
        wire.push({ method: request.method ?? '', path: url, headers: request.headers, body });
        if (script) return answerScripted(response, script(wire.at(-1)!, wire.length));
        return emulator.handle(request, response, at === -1 ? url : url.slice(0, at), at === -1 ? '' : url.slice(at + 1), body);
      })
      .catch((error: unknown) => {
        logger.error('stripe emulator failed', { component: 'stripe-emulator', error: String(error), id: randomUUID() });
        if (!response.headersSent) response.writeHead(500, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ error: { type: 'api_error', message: 'An unknown error occurred' } }));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(emulator, {
    url: `http://127.0.0.1:${port}`,
    wire,
    script: (next: StripeScript | undefined) => {
      script = next;
    },
    stop: async () => {
      emulator.events.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  });
};
