import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate as makeCertificate } from '../../../local/self-signed-certificate';

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

/** A local HTTPS server standing in for a caller's callback endpoint. */
export interface HttpsReceiver {
  /** e.g. `https://localhost:40123`. */
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Requests to one path. */
  requestsTo(path: string): ReceivedRequest[];
  stop(): Promise<void>;
}

/**
 * Starts an HTTPS receiver on 127.0.0.1. Paths: `/ok/...` answers 204, `/error/...` 500,
 * `/redirect/...` 302 to `https://127.0.0.1:<port>/ok/redirected`, `/hang/...` never answers.
 */
export const startHttpsReceiver = async (certificate: TestCertificate): Promise<HttpsReceiver> => {
  const requests: ReceivedRequest[] = [];
  let port = 0;
  const server: Server = createServer({ cert: certificate.cert, key: certificate.key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      requests.push({ method: request.method ?? '', path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      if (path.startsWith('/ok/')) {
        response.writeHead(204).end();
      } else if (path.startsWith('/error/')) {
        response.writeHead(500, { 'content-type': 'text/plain' }).end('receiver broke');
      } else if (path.startsWith('/redirect/')) {
        response.writeHead(302, { location: `https://127.0.0.1:${port}/ok/redirected` }).end();
      } else if (path.startsWith('/hang/')) {
        // never answers
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
