import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { eventually } from '../support/eventually';
import { afterEach, describe, expect, it } from 'vitest';
import { captureLogLines, type LogCapture } from '../support/log-lines';
import { customerWebhookSecret, verifyWebhook } from '../../shared/callbacks/signing';
import { testSqsClient } from '../support/resources';
import { getSms, postReceipt, postSms } from './support/http';
import { isoWithOffset, masterSecret, uniqueId, useCallbackRuntime } from './support/callback-runtime';
import { callerPool, sims } from './support/seed';

let capture: LogCapture | undefined;
const acme = callerPool('acme');

const { runtime, receiver } = useCallbackRuntime({ SMS_SIMULATOR_DELAY_MS: '50', CALLBACK_TOTAL_TIMEOUT_MS: '1500' });

afterEach(() => {
  capture?.restore();
});

const spyOnWarnings = () => {
  capture = captureLogLines();
};

/** The forward-receipt consumer's failure lines of one message (test/support/log-lines.ts). */
const forwardFailures = (messageId: string): unknown[] =>
  (capture?.lines() ?? []).filter((line) => line.message === 'receipt forward failed' && line.message_id === messageId);

/**
 * What every line of the consumer carries besides its own fields: the invocation's keys, the
 * receipt request's correlation id (from the message attributes) and the send-sms request's
 * as origin (stored with the message).
 */
const consumerKeys = {
  timestamp: expect.any(String),
  service: 'sim-checkout-service',
  function_name: 'forward-receipt',
  function_request_id: expect.any(String),
  cold_start: expect.any(Boolean),
  consumer: 'forward-receipt',
  correlation_id: expect.any(String),
  origin_correlation_id: expect.any(String),
  sqs_message_id: expect.any(String),
};

const queueDepth = async (url: string): Promise<number> => {
  const client = testSqsClient();
  try {
    const { Attributes } = await client.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  } finally {
    client.destroy();
  }
};

const expectQueuesDrained = async () => {
  await eventually(async () => expect((await queueDepth(runtime.queues.callbacks.url)) === 0).toBe(true));
  expect(await queueDepth(runtime.queues.callbacks.deadLetterUrl)).toBe(0);
};

const submit = async (sim: { iccid: string }, message: string, path: string) => {
  const messageId = uniqueId(path.split('/')[1]!);
  const response = await postSms(runtime.baseUrl, acme(), sim.iccid, {
    message,
    message_id: messageId,
    callback_url: `${receiver.url}${path}`,
  });
  expect(response.status).toBe(202);
  return messageId;
};

describe('delivery receipts forwarded to callback_url', () => {
  it.each([
    ['delivered', 'hello'],
    ['expired', 'hello [expired]'],
    ['failed', 'hello [failed]'],
  ])('posts a %s receipt to a local HTTPS receiver, signed the Standard Webhooks way', async (status, text) => {
    const path = `/ok/${status}-${process.pid}`;
    const messageId = await submit(sims.acme, text, path);
    await eventually(() => expect(receiver.requestsTo(path).length > 0).toBe(true));
    const [request] = receiver.requestsTo(path);
    const body = JSON.parse(request!.body) as Record<string, unknown>;
    expect(request!.method).toBe('POST');
    expect(request!.headers['content-type']).toBe('application/json');
    expect(body).toEqual({
      message_id: messageId,
      iccid: sims.acme.iccid,
      msisdn: sims.acme.msisdn,
      status,
      received_at: expect.stringMatching(isoWithOffset),
    });
    expect(Object.keys(body)).toEqual(['message_id', 'iccid', 'msisdn', 'status', 'received_at']);
    expect(request!.headers['webhook-id']).toBe(`${messageId}:${status}`);
    expect(request!.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const signed = {
      id: String(request!.headers['webhook-id']),
      timestamp: String(request!.headers['webhook-timestamp']),
      signature: String(request!.headers['webhook-signature']),
    };
    expect(verifyWebhook(customerWebhookSecret(masterSecret, 'acme'), signed, request!.body)).toBe(true);
    expect(verifyWebhook(customerWebhookSecret(masterSecret, 'globex'), signed, request!.body)).toBe(false);
    expect((await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId)).body).toEqual({
      message_id: messageId,
      direction: 'mt',
      iccid: sims.acme.iccid,
      msisdn: sims.acme.msisdn,
      status,
      submitted_at: expect.stringMatching(isoWithOffset),
      received_at: body.received_at,
    });
  });

  it("signs with the sending key's customer secret, also for a sub-customer's SIM", async () => {
    const path = `/ok/sub-${process.pid}`;
    await submit(sims.north, 'to the depot', path);
    await eventually(() => expect(receiver.requestsTo(path).length > 0).toBe(true));
    const [request] = receiver.requestsTo(path);
    const signed = {
      id: String(request!.headers['webhook-id']),
      timestamp: String(request!.headers['webhook-timestamp']),
      signature: String(request!.headers['webhook-signature']),
    };
    expect(verifyWebhook(customerWebhookSecret(masterSecret, 'acme'), signed, request!.body)).toBe(true);
    expect(verifyWebhook(customerWebhookSecret(masterSecret, 'acme-north'), signed, request!.body)).toBe(false);
  });

  it('forwards each transition exactly once: repeated provider receipts enqueue nothing', async () => {
    const path = `/ok/once-${process.pid}`;
    const messageId = await submit(sims.acme, 'once', path);
    await eventually(() => expect(receiver.requestsTo(path).length > 0).toBe(true));
    const repeats = await Promise.all(
      Array.from({ length: 3 }, () =>
        postReceipt(runtime.baseUrl, runtime.env.SMS_RECEIPT_SECRET!, { reference: messageId, status: 'delivered' }),
      ),
    );
    expect(repeats.map((response) => response.body)).toEqual(
      Array.from({ length: 3 }, () => ({ reference: messageId, status: 'delivered', outcome: 'repeat' })),
    );
    await expectQueuesDrained();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.requestsTo(path)).toHaveLength(1);
  });
});

describe('failed forwards: one log line, no retry', () => {
  it('does not follow a redirect (302 to a private address) and logs it', async () => {
    spyOnWarnings();
    const path = `/redirect/${process.pid}`;
    const messageId = await submit(sims.acme, 'redirect me', path);
    await eventually(() => expect(forwardFailures(messageId).length > 0).toBe(true));
    await expectQueuesDrained();
    expect(forwardFailures(messageId)).toEqual([
      {
        level: 'WARN',
        message: 'receipt forward failed',
        ...consumerKeys,
        message_id: messageId,
        status: 'delivered',
        callback_host: `localhost:${receiver.port}`,
        reason: 'redirect_not_followed',
        detail: `answered 302 to https://127.0.0.1:${receiver.port}; redirects are not followed`,
        http_status: 302,
      },
    ]);
    expect(receiver.requestsTo(path)).toHaveLength(1);
    expect(receiver.requestsTo('/ok/redirected')).toHaveLength(0);
  });

  it('logs a receiver that answers 500 once and does not retry', async () => {
    spyOnWarnings();
    const path = `/error/${process.pid}`;
    const messageId = await submit(sims.acme, 'break it', path);
    await eventually(() => expect(forwardFailures(messageId).length > 0).toBe(true));
    await expectQueuesDrained();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(forwardFailures(messageId)).toEqual([
      {
        level: 'WARN',
        message: 'receipt forward failed',
        ...consumerKeys,
        message_id: messageId,
        status: 'delivered',
        callback_host: `localhost:${receiver.port}`,
        reason: 'http_error',
        detail: 'answered 500',
        http_status: 500,
      },
    ]);
    expect(receiver.requestsTo(path)).toHaveLength(1);
  });

  it('gives up on a receiver that hangs after the total timeout, logs once and does not retry', async () => {
    spyOnWarnings();
    const path = `/hang/${process.pid}`;
    const messageId = await submit(sims.acme, 'hang on', path);
    await eventually(() => expect(forwardFailures(messageId).length > 0).toBe(true));
    await expectQueuesDrained();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(forwardFailures(messageId)).toEqual([
      {
        level: 'WARN',
        message: 'receipt forward failed',
        ...consumerKeys,
        message_id: messageId,
        status: 'delivered',
        callback_host: `localhost:${receiver.port}`,
        reason: 'timeout',
        detail: 'no complete response within 1500 ms',
      },
    ]);
    expect(receiver.requestsTo(path)).toHaveLength(1);
  });
});
