import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate as makeCertificate } from '../../local/self-signed-certificate';
import { recordWebhook } from './contract';

/** A self-signed certificate for localhost and 127.0.0.1, written to a temporary folder. */
export interface TestCertificate {
  certPath: string;
  cert: string;
  key: string;
  remove(): void;
}

/**
 * A self-signed certificate for localhost and 127.0.0.1 (local/self-signed-certificate.ts, the
 * one the runtime's webhook inbox uses), written to a temporary folder so that a test can
 * trust it through NODE_EXTRA_CA_CERTS.
 */
export const selfSignedCertificate = (): TestCertificate => {
  const folder = mkdtempSync(join(tmpdir(), 'sms-receiver-'));
  const certPath = join(folder, 'cert.pem');
  const { cert, key } = makeCertificate({ commonName: 'localhost', ipAddresses: ['127.0.0.1'], days: 1 });
  writeFileSync(certPath, cert);
  return { certPath, cert, key, remove: () => rmSync(folder, { recursive: true, force: true }) };
};

/** A request the receiver got. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A local HTTPS server standing in for a caller's callback endpoint or a webhook subscriber. */
export interface HttpsReceiver {
  /** e.g. `https://localhost:40123`. */
  url: string;
  port: number;
  /** Every request, in arrival order. */
  requests: ReceivedRequest[];
  /** Requests to one path. */
  requestsTo(path: string): ReceivedRequest[];
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
 * The suite's one HTTPS receiver, on 127.0.0.1. Paths: `/ok/...` answers 204, `/error/...` 500,
 * `/redirect/...` 302 to `https://127.0.0.1:<port>/ok/redirected`, `/hang/...` never answers,
 * `/flaky/<n>/...` 500 to the first n requests to that path and then 204, `/down/...` 503,
 * anything else 404. With `lifecycleEvents`, every request is checked against
 * docs/openapi.json's webhook of its event type (test/support/contract.ts): a payload or
 * header the document does not describe fails the test during which it arrived.
 */
export const startHttpsReceiver = async (certificate: TestCertificate, options: { lifecycleEvents?: boolean } = {}): Promise<HttpsReceiver> => {
  const requests: ReceivedRequest[] = [];
  let port = 0;
  const server: Server = createServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: request.method ?? '', path, headers: request.headers, body });
      if (options.lifecycleEvents) recordWebhook(webhookNameOf(body), { headers: request.headers, body });
      const flaky = /^\/flaky\/(\d+)\//.exec(path);
      if (path.startsWith('/ok/')) {
        response.writeHead(204).end();
      } else if (path.startsWith('/error/')) {
        response.writeHead(500, { 'content-type': 'text/plain' }).end('receiver broke');
      } else if (path.startsWith('/redirect/')) {
        response.writeHead(302, { location: `https://127.0.0.1:${port}/ok/redirected` }).end();
      } else if (path.startsWith('/hang/')) {
        // never answers
      } else if (flaky) {
        const seen = requests.filter((entry) => entry.path === path).length;
        response.writeHead(seen <= Number(flaky[1]) ? 500 : 204).end();
      } else if (path.startsWith('/down/')) {
        response.writeHead(503).end();
      } else {
        response.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: `https://localhost:${port}`,
    port,
    requests,
    requestsTo: (path) => requests.filter((request) => request.path === path),
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};
