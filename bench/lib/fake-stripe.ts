import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeServer } from '../../local/gateway';

/** A local stand-in for Stripe's API: just `POST /v1/payment_intents`, always successful. */
export interface BenchStripe {
  /** STRIPE_API_BASE, e.g. `http://127.0.0.1:40123`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts the stand-in on a free port, so that the checkout routes reach their success path
 * (a payment intent) without any network. It answers every payment intent creation with a
 * PaymentIntent the SDK accepts; anything else is 404 in Stripe's error shape.
 */
export const startBenchStripe = async (): Promise<BenchStripe> => {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { 'Content-Type': 'application/json', 'Request-Id': `req_${randomBytes(7).toString('hex')}` });
        response.end(JSON.stringify(body));
      };
      if (request.method !== 'POST' || request.url !== '/v1/payment_intents') {
        answer(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${request.method}: ${request.url}).` } });
        return;
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const id = `pi_bench_${randomBytes(8).toString('hex')}`;
      const metadata = Object.fromEntries(
        [...form].flatMap(([name, value]) => {
          const match = /^metadata\[(.+)\]$/.exec(name);
          return match ? [[match[1]!, value]] : [];
        }),
      );
      answer(200, {
        id, object: 'payment_intent', amount: Number(form.get('amount')), currency: form.get('currency'),
        client_secret: `${id}_secret_${randomBytes(8).toString('hex')}`, status: 'requires_payment_method', metadata, livemode: false,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stop: () => closeServer(server) };
};
