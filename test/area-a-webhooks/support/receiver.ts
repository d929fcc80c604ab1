import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TestCertificate } from '../../area-a-sms/support/https-receiver';
import { recordWebhook } from '../../support/contract';

/** A webhook the receiver got. */
export interface ReceivedWebhook {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A local HTTPS server standing in for subscribers' endpoints. */
export interface WebhookReceiver {
  /** e.g. `https://localhost:40123`. */
  url: string;
  port: number;
  /** Every request, in arrival order. */
  received: ReceivedWebhook[];
  /** The requests to one path. */
  to(path: string): ReceivedWebhook[];
  stop(): Promise<void>;
}

/** The document's webhook for a lifecycle event: the one named by its `type` (docs/openapi.json `webhooks`). */
const webhookNameOf = (body: string): string => {
  try {
    const type = (JSON.parse(body) as { type?: unknown }).type;
    return typeof type === 'string' ? type : '';
  } catch {
    return '';
  }
};

/**
 * Starts an HTTPS receiver on 127.0.0.1. `/ok/...` answers 204; `/flaky/<n>/...` answers 500 to
 * the first n requests to that path, then 204; `/down/...` always 503. Every request is checked
 * against docs/openapi.json's webhook of its event type (test/support/contract.ts): a payload
 * or header the document does not describe fails the test during which it arrived.
 */
export const startWebhookReceiver = async (certificate: TestCertificate): Promise<WebhookReceiver> => {
  const received: ReceivedWebhook[] = [];
  const server: Server = createServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ path, headers: request.headers, body });
      recordWebhook(webhookNameOf(body), { headers: request.headers, body });
      const flaky = /^\/flaky\/(\d+)\//.exec(path);
      if (path.startsWith('/ok/')) response.writeHead(204).end();
      else if (flaky) {
        const seen = received.filter((entry) => entry.path === path).length;
        response.writeHead(seen <= Number(flaky[1]) ? 500 : 204).end();
      } else if (path.startsWith('/down/')) response.writeHead(503).end();
      else response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}`,
    port,
    received,
    to: (path) => received.filter((entry) => entry.path === path),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
