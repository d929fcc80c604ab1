import { randomUUID } from 'node:crypto';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually';
import { captureLogLines, logEntries, type LogLine } from '../support/log-lines';
import { testSqsClient } from '../support/resources';
import { postSms } from './support/http';
import { uniqueId, useCallbackRuntime } from './support/callback-runtime';
import { callerPool, sims } from './support/seed';

/**
 * Issue #31 point 6: no log line carries a whole MSISDN or a callback URL's path and query
 * (shared/observability/redaction.ts, applied by the logger to every line). Each test captures
 * the real JSON lines of the runtime (the functions, the pollers, the simulators) while an SMS
 * goes out with a callback_url and its receipt is forwarded, a forward fails, and SMS come in,
 * and looks for the numbers and the paths in every line, whatever its field.
 */

const acme = callerPool('acme');
const { runtime, receiver } = useCallbackRuntime({ SMS_SIMULATOR_DELAY_MS: '50' });

/** Every line as text, to search whatever the field (the message, an error, a nested object). */
const texts = (lines: LogLine[]) => logEntries(lines).map((line) => JSON.stringify(line));

/** A number no SIM has (an inbound SMS from it is dropped). */
const stranger = '447700999991';

/** What must never be in a line: each SIM's whole MSISDN (so with or without its +), and the stranger's. */
const numbers = [...Object.values(sims).flatMap((sim) => (sim.msisdn ? [sim.msisdn] : [])), stranger];

const expectNoNumberOrPath = (lines: LogLine[], paths: string[]) => {
  const leaks = texts(lines).filter((text) => [...numbers, ...paths].some((secret) => text.includes(secret)));
  expect(leaks).toEqual([]);
};

/** The lines written while `action` runs; it may read them as they come. */
const linesOf = async (action: (lines: () => LogLine[]) => Promise<void>): Promise<LogLine[]> => {
  const capture = captureLogLines();
  try {
    await action(capture.lines);
    return capture.lines();
  } finally {
    capture.restore();
  }
};

const inbound = async (fields: Record<string, unknown>) => {
  const response = await fetch(`${runtime.baseUrl}/_local/aws-sms/inbound`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(fields) });
  expect(response.status).toBe(202);
  await runtime.topics.settled();
};

const functionsOf = (lines: LogLine[]) => [...new Set(logEntries(lines).map((line) => line.function_name).filter(Boolean))].sort();

describe('log lines never carry a whole MSISDN or a callback URL path and query', () => {
  it('of an SMS sent with a callback_url whose receipt is forwarded', async () => {
    const secretPath = `/ok/${uniqueId('private-path')}`;
    const query = `?token=${randomUUID()}`;
    const lines = await linesOf(async (lines) => {
      const answer = await postSms(runtime.baseUrl, acme(), sims.acme.iccid, { message: 'hello', callback_url: `${receiver.url}${secretPath}${query}` });
      expect(answer.status).toBe(202);
      await eventually(() => expect(receiver.requestsTo(`${secretPath}${query}`)).toHaveLength(1));
      await eventually(() => expect(logEntries(lines()).some((line) => line.message === 'receipt forwarded')).toBe(true));
    });
    expectNoNumberOrPath(lines, [secretPath, query.slice(1)]);
    expect(functionsOf(lines)).toEqual(expect.arrayContaining(['forward-receipt', 'send-sms']));
  });

  it("of a forward that failed on a redirect: the Location's path is not shown either", async () => {
    const secretPath = `/redirect/${uniqueId('private-path')}`;
    const lines = await linesOf(async (lines) => {
      const answer = await postSms(runtime.baseUrl, acme(), sims.north.iccid, { message: 'hello', callback_url: `${receiver.url}${secretPath}?q=1` });
      expect(answer.status).toBe(202);
      await eventually(() => expect(logEntries(lines()).some((line) => line.message === 'receipt forward failed')).toBe(true));
    });
    expectNoNumberOrPath(lines, [secretPath, '/ok/redirected', 'q=1']);
    expect(logEntries(lines).find((line) => line.message === 'receipt forward failed')).toMatchObject({
      callback_host: `localhost:${receiver.port}`,
      reason: 'redirect_not_followed',
      detail: `answered 302 to https://127.0.0.1:${receiver.port}; redirects are not followed`,
    });
  });

  it('of inbound SMS, from a SIM and from a number no SIM has', async () => {
    const lines = await linesOf(async () => {
      await inbound({ originationNumber: `+${sims.globex.msisdn}`, destinationNumber: '+447700900000', messageBody: 'hi', inboundMessageId: randomUUID() });
      await inbound({ originationNumber: `+${stranger}`, messageBody: 'who am I', inboundMessageId: randomUUID() });
    });
    expectNoNumberOrPath(lines, []);
    expect(logEntries(lines).filter((line) => line.function_name === 'receive-inbound-sms').map((line) => [line.message, line.origination_number])).toEqual([
      ['inbound sms stored', undefined],
      ['inbound sms from an unknown number dropped', '•••9991'],
    ]);
  });

  // Last: it takes the callbacks queue away from the runtime.
  it('of a receipt that could not be queued for forwarding, logged for a manual replay', async () => {
    const sqs = testSqsClient();
    await sqs.send(new DeleteQueueCommand({ QueueUrl: runtime.queues.callbacks.url }));
    sqs.destroy();
    const secretPath = `/ok/${uniqueId('never-forwarded')}`;
    let messageId = '';
    const lines = await linesOf(async (lines) => {
      const answer = await postSms(runtime.baseUrl, acme(), sims.acme.iccid, { message: 'hello', callback_url: `${receiver.url}${secretPath}?token=abc` });
      expect(answer.status).toBe(202);
      messageId = (answer.body as { message_id: string }).message_id;
      await eventually(() => expect(logEntries(lines()).some((line) => line.message === 'receipt could not be queued for forwarding')).toBe(true));
    });
    expectNoNumberOrPath(lines, [secretPath, 'token=abc']);
    expect(logEntries(lines).find((line) => line.message === 'receipt could not be queued for forwarding')).toMatchObject({
      level: 'ERROR',
      message_id: messageId,
      queued: {
        receipt: { message_id: messageId, iccid: sims.acme.iccid, msisdn: `•••${sims.acme.msisdn.slice(-4)}`, status: 'delivered' },
        callback_url: receiver.url,
        customer_id: 'acme',
      },
    });
  });
});
