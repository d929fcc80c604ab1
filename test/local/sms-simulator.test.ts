import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer } from '../../local/gateway';
import { receiptSignature, simulatorSettingsFromEnv, startSmsSimulator, type SmsSimulator } from '../../local/sms-simulator';
import { eventually } from '../support/eventually';

const token = 'provider-token-for-the-test';
const secret = 'receipt-secret-for-the-test';

type Receipt = { headers: Record<string, string | string[] | undefined>; raw: string };

let simulator: SmsSimulator;
let receiver: Server;
let receiptUrl: string;
const receipts: Receipt[] = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url !== '/sms-provider/receipts') {
        response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"detail":"Not found.","code":"not_found"}');
        return;
      }
      receipts.push({ headers: request.headers, raw: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiptUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/sms-provider/receipts`;
  simulator = await startSmsSimulator({ token, receiptSecret: secret, delayMs: 10, quiet: true });
});

afterAll(async () => {
  await simulator.stop();
  await closeServer(receiver);
});

const submit = (body: unknown, bearer = token) =>
  fetch(`${simulator.url}/messages`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });

const message = (reference: string, text: string, url = receiptUrl) => ({ reference, to: '447700900001', text, receipt_url: url });

const receiptFor = (reference: string) =>
  eventually(() => {
    const found = receipts.find((receipt) => JSON.parse(receipt.raw).reference === reference);
    expect(found).toBeDefined();
    return found!;
  });

describe('SMS network simulator', () => {
  it('accepts a message with 202 and posts a signed delivered receipt to receipt_url', async () => {
    const response = await submit(message('msg-1', 'hello'));
    const body = (await response.json()) as { provider_message_id: string; status: string };
    expect(response.status).toBe(202);
    expect(body).toEqual({ provider_message_id: expect.stringMatching(/.+/), status: 'accepted' });
    const receipt = await receiptFor('msg-1');
    const parsed = JSON.parse(receipt.raw);
    expect(parsed).toEqual({
      reference: 'msg-1',
      provider_message_id: body.provider_message_id,
      status: 'delivered',
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(receipt.headers['content-type']).toBe('application/json');
    expect(receipt.headers['x-provider-signature']).toBe(receiptSignature(receipt.raw, secret));
    expect(receipt.headers['x-provider-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('refuses a missing or wrong bearer token with 401', async () => {
    const wrong = await submit(message('msg-401', 'hello'), 'not-the-token');
    expect(wrong.status).toBe(401);
    const missing = await fetch(`${simulator.url}/messages`, { method: 'POST', body: JSON.stringify(message('msg-401', 'x')) });
    expect(missing.status).toBe(401);
    expect(simulator.messages().some((entry) => entry.reference === 'msg-401')).toBe(false);
  });

  it('reports the outcome a [expired] or [failed] marker asks for', async () => {
    await submit(message('msg-expired', 'bye [expired]'));
    await submit(message('msg-failed', '[failed] bye'));
    expect(JSON.parse((await receiptFor('msg-expired')).raw).status).toBe('expired');
    expect(JSON.parse((await receiptFor('msg-failed')).raw).status).toBe('failed');
  });

  it('refuses a [provider-error] text with 500', async () => {
    const response = await submit(message('msg-500', 'boom [provider-error]'));
    expect(response.status).toBe(500);
    expect(simulator.messages().some((entry) => entry.reference === 'msg-500')).toBe(false);
  });

  it('lists what it received, newest last, and records a receipt that could not be posted', async () => {
    await submit(message('msg-nowhere', 'to a receipt URL that answers 404', receiptUrl.replace('/sms-provider/receipts', '/missing')));
    await submit(message('msg-closed', 'to a closed port', 'http://127.0.0.1:1/receipts'));
    const listed = await eventually(async () => {
      const response = await fetch(`${simulator.url}/messages`);
      const body = (await response.json()) as { messages: Array<{ reference: string; receipt: { state: string; status?: number } }> };
      expect(body.messages.slice(-2).map((entry) => entry.receipt.state)).not.toContain('pending');
      return body.messages;
    });
    expect(listed.slice(-2).map((entry) => [entry.reference, entry.receipt.state])).toEqual([
      ['msg-nowhere', 'failed'],
      ['msg-closed', 'failed'],
    ]);
    expect(listed.at(-2)?.receipt.status).toBe(404);
  });

  it('uses SMS_SIMULATOR_OUTCOME as the default outcome and validates the settings', async () => {
    expect(simulatorSettingsFromEnv({ SMS_SIMULATOR_OUTCOME: 'expired', SMS_SIMULATOR_DELAY_MS: '5' })).toEqual({
      outcome: 'expired',
      delayMs: 5,
    });
    expect(() => simulatorSettingsFromEnv({ SMS_SIMULATOR_OUTCOME: 'lost' })).toThrow(/SMS_SIMULATOR_OUTCOME/);
    const expiring = await startSmsSimulator({ token, receiptSecret: secret, delayMs: 0, quiet: true, ...simulatorSettingsFromEnv({ SMS_SIMULATOR_OUTCOME: 'expired' }) });
    try {
      await fetch(`${expiring.url}/messages`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
        body: JSON.stringify(message('msg-default-expired', 'plain text')),
      });
      expect(JSON.parse((await receiptFor('msg-default-expired')).raw).status).toBe('expired');
    } finally {
      await expiring.stop();
    }
  });
});
