import { X509Certificate } from 'node:crypto';
import { fetchFromRuntime } from '../support/request';
import { eventually, present } from '../support/eventually';
import { request } from 'node:https';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../local/self-signed-certificate';
import { customerWebhookSecret, webhookHeaders, webhookSignature } from '../../shared/callbacks/signing';
import { startWebhookInbox } from '../../local/webhook-inbox';
import { callerPool, sims, smsSeed } from '../area-a-sms/support/seed';
import { useTestRuntime } from '../support/runtime';

const masterSecret = 'inbox-test-master-secret';
const acme = callerPool('acme');

// No CALLBACK_ALLOWED_HOSTS and no NODE_EXTRA_CA_CERTS: the inbox needs no configuration.
const runtime = useTestRuntime({ seed: smsSeed, env: { SMS_SIMULATOR_DELAY_MS: '50', CALLBACK_SIGNING_SECRET: masterSecret } });

const sendSms = (iccid: string, callbackUrl: string) => {
  const caller = acme();
  return fetchFromRuntime(`${runtime.baseUrl}/developer/api/sims/${iccid}/sms/`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${caller.token}`, 'X-Customer-API-Key': caller.apiKey, 'Content-Type': 'application/json' },
    body: JSON.stringify({ message: 'inbox test', callback_url: callbackUrl }),
  });
};

/** One request to the inbox over HTTPS, trusting exactly its self-signed certificate. */
const inboxRequest = (method: string, headers: Record<string, string>, body?: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = request(runtime.inbox.url, { method, headers, ca: runtime.inbox.certificate }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => resolve({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });

describe('self-signed certificate', () => {
  it('is a valid self-signed X.509 v3 certificate for localhost and the addresses given', () => {
    const { cert, key } = selfSignedCertificate({ commonName: 'unit test', ipAddresses: ['127.0.0.1'], days: 2 });
    const parsed = new X509Certificate(cert);
    expect({
      subject: parsed.subject,
      issuer: parsed.issuer,
      subjectAltName: parsed.subjectAltName,
      ca: parsed.ca,
      selfSigned: parsed.verify(parsed.publicKey),
      checksHost: parsed.checkHost('localhost'),
      checksIp: parsed.checkIP('127.0.0.1'),
      days: Math.round((Date.parse(parsed.validTo) - Date.parse(parsed.validFrom)) / 86_400_000),
    }).toEqual({
      subject: 'CN=unit test',
      issuer: 'CN=unit test',
      subjectAltName: 'DNS:localhost, IP Address:127.0.0.1',
      ca: true,
      selfSigned: true,
      checksHost: 'localhost',
      checksIp: '127.0.0.1',
      days: 2,
    });
    expect(key).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });
});

describe('webhook inbox of the local runtime', () => {
  it('receives the signed delivery receipt of an SMS sent with its URL as callback_url, with no configuration', async () => {
    expect(runtime.inbox.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/$/);
    const response = await sendSms(sims.north.iccid, runtime.inbox.url);
    expect(response.status).toBe(202);
    const { message_id: messageId } = (await response.json()) as { message_id: string };
    const delivery = await eventually(() => present(runtime.inbox.deliveries().find((entry) => entry.body.includes(messageId))));
    const receipt = JSON.parse(delivery.body) as Record<string, unknown>;
    expect(receipt).toMatchObject({ message_id: messageId, status: 'delivered' });
    expect(delivery).toMatchObject({ method: 'POST', path: '/', signature: { status: 'verified', owner: 'acme' } });
    // The signature the inbox checked is the one acme's receiver would check.
    const secret = customerWebhookSecret(masterSecret, 'acme');
    expect(delivery.headers['webhook-signature']).toBe(
      webhookSignature(secret, delivery.headers['webhook-id']!, Number(delivery.headers['webhook-timestamp']), delivery.body),
    );
    // GET on the inbox lists what it kept, newest first, over HTTPS.
    const listed = await inboxRequest('GET', {});
    expect(listed.status).toBe(200);
    expect((JSON.parse(listed.body) as { deliveries: unknown[] }).deliveries).toEqual(runtime.inbox.deliveries());
  });

  it('exempts its own origin only: another loopback port is still refused', async () => {
    const otherPort = Number(new URL(runtime.inbox.url).port) + 1;
    const response = await sendSms(sims.north.iccid, `https://127.0.0.1:${otherPort}/`);
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: {
        detail: `callback_url must point to a publicly reachable host; 127.0.0.1 is loopback. Locally, the built-in HTTPS inbox ${runtime.inbox.url} is accepted, and CALLBACK_ALLOWED_HOSTS=host[:port],... (a variable of npm start) allows other hosts.`,
        code: 'invalid_callback_url',
      },
    });
  });

  it('records a delivery whose signature does not verify as invalid, and an unsigned one as unsigned', async () => {
    const post = async (headers: Record<string, string>) => (await inboxRequest('POST', headers, '{"hello":"inbox"}')).status;
    const now = String(Math.floor(Date.now() / 1000));
    expect(await post({ 'webhook-id': 'msg_forged', 'webhook-timestamp': now, 'webhook-signature': 'v1,Zm9yZ2Vk' })).toBe(200);
    expect(await post({ 'content-type': 'application/json' })).toBe(200);
    const [unsigned, forged] = runtime.inbox.deliveries();
    expect(unsigned!.signature).toEqual({ status: 'unsigned' });
    expect(forged!.signature).toMatchObject({ status: 'invalid' });
    expect(forged!.body).toBe('{"hello":"inbox"}');
  });
});

describe('the inbox reading the secrets it verifies with', () => {
  it('reads them once for a burst of deliveries, and again for a delivery they do not verify (a secret made since)', async () => {
    const secrets = [{ owner: 'acme', secret: 'whsec_' + Buffer.from('first secret of the inbox test').toString('base64') }];
    let reads = 0;
    const inbox = await startWebhookInbox({
      secrets: async () => {
        reads += 1;
        return [...secrets];
      },
    });
    try {
      const deliver = (secret: string, body: string) =>
        new Promise<number>((resolve, reject) => {
          const headers = { 'content-type': 'application/json', ...webhookHeaders(secret, `msg_${body}`, Math.floor(Date.now() / 1000), body) };
          const outgoing = request(inbox.url, { method: 'POST', headers, ca: inbox.certificate }, (answer) => {
            answer.resume();
            answer.on('end', () => resolve(answer.statusCode ?? 0));
          });
          outgoing.on('error', reject);
          outgoing.end(body);
        });
      expect(await Promise.all(Array.from({ length: 20 }, (_, index) => deliver(secrets[0]!.secret, `{"n":${index}}`)))).toEqual(Array(20).fill(200));
      const readsForTheBurst = reads;
      secrets.push({ owner: 'acme-north', secret: 'whsec_' + Buffer.from('a secret made after the burst').toString('base64') });
      expect(await deliver(secrets[1]!.secret, '{"n":"later"}')).toBe(200);
      expect(await deliver('whsec_' + Buffer.from('nobody knows this one').toString('base64'), '{"n":"stranger"}')).toBe(200);
      expect({ readsForTheBurst, reads: reads - readsForTheBurst, owners: inbox.deliveries().map((delivery) => delivery.signature) }).toEqual({
        readsForTheBurst: 1,
        reads: 2,
        owners: [
          { status: 'invalid', reason: 'no known secret verifies it within five minutes (tried 2)' },
          { status: 'verified', owner: 'acme-north' },
          ...Array(20).fill({ status: 'verified', owner: 'acme' }),
        ],
      });
    } finally {
      await inbox.stop();
    }
  });
});
