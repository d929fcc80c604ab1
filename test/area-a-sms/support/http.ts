import { createHmac } from 'node:crypto';
import { createServer } from 'node:net';
import { exchange, testResponse, type TestResponse } from '../../support/request';
import type { Caller } from './seed';

export type { TestResponse };

const bothFactors = (caller: Caller) => ({ Authorization: `Bearer ${caller.token}`, 'X-Customer-API-Key': caller.apiKey });

/** POST /developer/api/sims/<iccid>/sms/ with a JSON body (or raw text). */
export const postSms = async (baseUrl: string, caller: Caller, iccid: string, body: unknown): Promise<TestResponse> =>
  testResponse(
    await exchange(baseUrl, `/developer/api/sims/${iccid}/sms/`, {
      method: 'POST',
      headers: { ...bothFactors(caller), 'Content-Type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );

/** GET /developer/api/sims/<iccid>/sms/<message_id>/. */
export const getSms = async (baseUrl: string, caller: Caller, iccid: string, messageId: string): Promise<TestResponse> =>
  testResponse(await exchange(baseUrl, `/developer/api/sims/${iccid}/sms/${encodeURIComponent(messageId)}/`, { headers: bothFactors(caller) }));

/** POST /sms-provider/receipts as the provider does, signed with `secret` unless a signature is given. */
export const postReceipt = async (
  baseUrl: string,
  secret: string,
  receipt: unknown,
  signature?: string | null,
): Promise<TestResponse> => {
  const body = typeof receipt === 'string' ? receipt : JSON.stringify(receipt);
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  const value = signature === undefined ? `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` : signature;
  if (value !== null) headers['X-Provider-Signature'] = value;
  return testResponse(await exchange(baseUrl, '/sms-provider/receipts', { method: 'POST', headers, body }));
};

/** A TCP port on 127.0.0.1 that nothing listens on (a server was bound there and closed). */
export const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
};
