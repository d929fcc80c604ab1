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
/** How long the inbox checks deliveries against the secrets it read last before it reads them again. */
export const secretsMaxAgeMs = 10_000;
/** Largest body accepted (bytes); a bigger one is answered 413 and not kept. */
export const inboxMaxBodyBytes = 1024 * 1024;

const single = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value.join(', ') : value);

/** The Standard Webhooks headers of a delivery, or what the inbox says of it when they are absent or incomplete. */
const signatureHeaders = (headers: Record<string, string>): { id: string; timestamp: string; signature: string } | InboxSignature => {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signature = headers['webhook-signature'];
  if (id === undefined && timestamp === undefined && signature === undefined) return { status: 'unsigned' };
  if (id === undefined || timestamp === undefined || signature === undefined) {
    return { status: 'invalid', reason: 'webhook-id, webhook-timestamp and webhook-signature must come together' };
  }
  return { id, timestamp, signature };
};

/** The owner of the first of `secrets` that verifies the signed delivery. */
const verifiedOwner = (signed: { id: string; timestamp: string; signature: string }, body: string, secrets: InboxSecret[]): string | undefined =>
  secrets.find(({ secret }) => verifyWebhook(secret, signed, body))?.owner;

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
  // The secrets as last read: a delivery is checked against them first, and against a fresh
  // read when they do not verify it or are older than secretsMaxAgeMs (options.secrets() scans
  // the table: once per delivery, a burst of hundreds of deliveries kept DynamoDB Local busy).
  let known: { secrets: InboxSecret[]; readAt: number } | undefined;
  let reading: Promise<InboxSecret[]> | undefined;
  const freshSecrets = (): Promise<InboxSecret[]> => {
    const read = Promise.resolve(options.secrets())
      .catch((): InboxSecret[] => [])
      .then((secrets) => {
        known = { secrets, readAt: Date.now() };
        return secrets;
      })
      .finally(() => {
        if (reading === read) reading = undefined;
      });
    reading = read;
    return read;
  };
  const signatureOf = async (headers: Record<string, string>, body: string): Promise<InboxSignature> => {
    const signed = signatureHeaders(headers);
    if ('status' in signed) return signed;
    // The secrets read last, then a read already under way (a burst shares it), then a read of its own.
    const fromKnown = known && Date.now() - known.readAt < secretsMaxAgeMs ? verifiedOwner(signed, body, known.secrets) : undefined;
    const shared = fromKnown ?? (reading ? verifiedOwner(signed, body, await reading) : undefined);
    if (shared !== undefined) return { status: 'verified', owner: shared };
    const secrets = await freshSecrets();
    const owner = verifiedOwner(signed, body, secrets);
    return owner !== undefined ? { status: 'verified', owner } : { status: 'invalid', reason: `no known secret verifies it within five minutes (tried ${secrets.length})` };
  };
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
      void signatureOf(headers, body).then((signature) => {
          count += 1;
          kept.unshift({
            id: count,
            received_at: new Date().toISOString(),
            method: request.method ?? 'POST',
            path: request.url ?? '/',
            headers,
            body,
            signature,
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
