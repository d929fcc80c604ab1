import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../shared/callbacks/signing';
import { selfSignedCertificate } from './self-signed-certificate';

/** A secret the inbox tries on a signed delivery, with whose it is (a customer id). */
export interface InboxSecret {
  owner: string;
  secret: string;
}

/** What the inbox concluded of a delivery's Standard Webhooks signature. */
export type InboxSignature =
  | { status: 'verified'; owner: string }
  | { status: 'invalid'; reason: string }
  | { status: 'unsigned' };

/** One request the inbox received, as it arrived. */
export interface InboxDelivery {
  /** Its number in this inbox, from 1. */
  id: number;
  received_at: string;
  method: string;
  path: string;
  /** Header names lower-cased, as Node gives them. */
  headers: Record<string, string>;
  /** The body as UTF-8 text, exactly as sent. */
  body: string;
  signature: InboxSignature;
}

/** A running inbox. */
export interface WebhookInbox {
  /** Its base URL, `https://127.0.0.1:<port>/`: a callback_url for delivery receipts. */
  url: string;
  /** Host and port (`127.0.0.1:<port>`), the one origin the runtime exempts from the public-host rule. */
  origin: string;
  /** The inbox's self-signed certificate (PEM), which the runtime's outbound calls trust. */
  certificate: string;
  /** Every delivery kept, newest first. */
  deliveries(): InboxDelivery[];
  stop(): Promise<void>;
}

/** Deliveries kept; older ones are dropped. */
export const inboxCapacity = 500;
/** Largest body accepted (bytes); a bigger one is answered 413 and not kept. */
export const inboxMaxBodyBytes = 1024 * 1024;

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

const checkSignature = (headers: Record<string, string>, body: string, secrets: InboxSecret[]): InboxSignature => {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  if (id === undefined && timestamp === undefined && signature === undefined) return { status: 'unsigned' };
  if (id === undefined || timestamp === undefined || signature === undefined) {
    return { status: 'invalid', reason: 'webhook-id, webhook-timestamp and webhook-signature must come together' };
  }
  const owner = secrets.find(({ secret }) => verifyWebhook(secret, { id, timestamp, signature }, body))?.owner;
  if (owner !== undefined) return { status: 'verified', owner };
  return { status: 'invalid', reason: `no known secret verifies it within five minutes (tried ${secrets.length})` };
};

/**
 * The local runtime's webhook inbox: an HTTPS receiver on 127.0.0.1 with a certificate made at
 * start (local/self-signed-certificate.ts), so that a delivery receipt can be sent to it as a
 * callback_url with no setup. It answers every POST (any path) `200 {"received":true}` and
 * keeps it (headers, body, and whether its Standard Webhooks signature verifies with one of
 * `secrets()`: the receipt secrets of the customers the runtime knows); `GET` on any path
 * lists what it kept, newest first, as `{"deliveries": [...]}`. Local runtime only.
 */
export const startWebhookInbox = async (options: { secrets: () => Promise<InboxSecret[]> | InboxSecret[] }): Promise<WebhookInbox> => {
  const { cert, key } = selfSignedCertificate({ commonName: 'sim-service local webhook inbox', ipAddresses: ['127.0.0.1'], days: 30 });
  const kept: InboxDelivery[] = [];
  let count = 0;
  const server: Server = createServer({ cert, key }, (request, response) => {
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method === 'GET' || request.method === 'HEAD') {
      answer(200, { deliveries: kept });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > inboxMaxBodyBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => {
      if (tooLarge) {
        answer(413, { detail: `The body is larger than ${inboxMaxBodyBytes} bytes.`, code: 'payload_too_large' });
        return;
      }
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(
        Object.entries(request.headers).flatMap(([name, value]) => (single(value) === undefined ? [] : [[name, single(value)!]])),
      );
      void Promise.resolve(options.secrets())
        .catch(() => [])
        .then((secrets) => {
          count += 1;
          kept.unshift({
            id: count,
            received_at: new Date().toISOString(),
            method: request.method ?? 'POST',
            path: request.url ?? '/',
            headers,
            body,
            signature: checkSignature(headers, body, secrets),
          });
          kept.splice(inboxCapacity);
          answer(200, { received: true });
        });
    });
    request.on('error', () => response.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/`,
    origin: `127.0.0.1:${port}`,
    certificate: cert,
    deliveries: () => [...kept],
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
