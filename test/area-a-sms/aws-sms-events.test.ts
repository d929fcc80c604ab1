import { GetQueueAttributesCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { eventually } from '../support/eventually';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { buildSnsEvent } from '../../local/topics';
import { lambdaContext } from '../../local/lambda-context';
import { customerWebhookSecret, verifyWebhook } from '../../shared/callbacks/signing';
import type { FulfilmentEffectItem, SmsMessageItem } from '../../shared/db/items';
import { key } from '../../shared/db/keys';
import { recordSmsEvents } from '../../shared/routes/record-sms-events';
import { testDynamoClient, testSqsClient } from '../support/resources';
import { getSms, postSms } from './support/http';
import { isoWithOffset, masterSecret, uniqueId, useCallbackRuntime } from './support/callback-runtime';
import { callerPool, sims } from './support/seed';

/**
 * Issue #21, delivery events of AWS End User Messaging SMS over HTTP against the local runtime:
 * every event mapping, events that are not final, duplicates and reordering, an event that
 * overtakes its message, and the fulfilment SMS's events. The emulator's own events come far
 * too late here (SMS_SIMULATOR_DELAY_MS): each event is posted by hand to
 * `POST /_local/aws-sms/events`, which hands it to the same consumer as the deployed topic.
 */

const db = DynamoDBDocumentClient.from(testDynamoClient());
const acme = callerPool('acme');

const { runtime, receiver } = useCallbackRuntime({ SMS_PROVIDER: 'aws', SMS_SIMULATOR_DELAY_MS: '600000' }, { stopAfter: () => db.destroy() });

/** Sends an SMS with a callback to `path`; returns our id and the network's. */
const send = async (label: string, path = `/ok/${uniqueId(label)}`) => {
  const messageId = uniqueId(label);
  const response = await postSms(runtime.baseUrl, acme(), sims.acme.iccid, { message: `event test ${label}`, message_id: messageId, callback_url: `${receiver.url}${path}` });
  expect(response.status).toBe(202);
  const sent = runtime.awsSms.messages().find((message) => message.context.message_id === messageId)!;
  return { messageId, providerId: sent.message_id, path };
};

let clock = Date.parse('2026-11-25T12:00:00.000Z');
/** A delivery event as the configuration set's SNS event destination publishes it. */
const smsEvent = (fields: { eventType: string; isFinal: boolean; messageId?: string; context?: Record<string, string>; messageStatus?: string; at?: number }) => ({
  eventType: fields.eventType,
  eventVersion: '1.0',
  eventTimestamp: fields.at ?? (clock += 1000),
  isFinal: fields.isFinal,
  originationPhoneNumber: '+447700900000',
  destinationPhoneNumber: `+${sims.acme.msisdn}`,
  messageId: fields.messageId ?? 'unknown',
  messageType: 'TRANSACTIONAL',
  messageStatus: fields.messageStatus ?? fields.eventType.replace(/^TEXT_/, ''),
  context: fields.context ?? {},
});

/** POST /_local/aws-sms/events, then wait until the consumer has handled everything published. */
const postEvent = async (event: unknown) => {
  const response = await fetch(`${runtime.baseUrl}/_local/aws-sms/events`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(event) });
  expect(response.status).toBe(202);
  expect(await response.json()).toEqual({ topic: 'sms-events', sns_message_id: expect.any(String) });
  await runtime.topics.settled();
};

const stateOf = async (messageId: string) => (await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId)).body as Record<string, unknown>;
const storedMessage = async (messageId: string) =>
  (await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.message(messageId), ConsistentRead: true }))).Item as SmsMessageItem;
const queueDepth = async (url: string): Promise<number> => {
  const client = testSqsClient();
  try {
    const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
  } finally {
    client.destroy();
  }
};
const settleForwards = async () => {
  await eventually(async () => expect((await queueDepth(runtime.queues.callbacks.url)) === 0).toBe(true));
  await new Promise((resolve) => setTimeout(resolve, 200));
};

describe('delivery events: every final type and what it means', () => {
  it.each([
    ['TEXT_DELIVERED', 'delivered'],
    ['TEXT_SUCCESSFUL', 'delivered'],
    ['TEXT_TTL_EXPIRED', 'expired'],
    ['TEXT_CARRIER_UNREACHABLE', 'failed'],
    ['TEXT_BLOCKED', 'failed'],
    ['TEXT_CARRIER_BLOCKED', 'failed'],
    ['TEXT_INVALID', 'failed'],
    ['TEXT_INVALID_MESSAGE', 'failed'],
    ['TEXT_UNREACHABLE', 'failed'],
    ['TEXT_SPAM', 'failed'],
    ['TEXT_UNKNOWN', 'failed'],
    ['TEXT_PROTECT_BLOCKED', 'failed'],
  ])('a final %s moves the message to %s and forwards one signed receipt', async (eventType, status) => {
    const { messageId, providerId, path } = await send(eventType.toLowerCase());
    await postEvent(smsEvent({ eventType, isFinal: true, messageId: providerId, context: { message_id: messageId } }));
    const state = await stateOf(messageId);
    expect(state).toEqual({
      message_id: messageId,
      direction: 'mt',
      iccid: sims.acme.iccid,
      msisdn: sims.acme.msisdn,
      status,
      submitted_at: expect.stringMatching(isoWithOffset),
      received_at: expect.stringMatching(isoWithOffset),
    });
    await eventually(() => expect(receiver.requestsTo(path).length > 0).toBe(true));
    const [receipt] = receiver.requestsTo(path);
    expect(JSON.parse(receipt!.body)).toEqual({ message_id: messageId, iccid: sims.acme.iccid, msisdn: sims.acme.msisdn, status, received_at: state.received_at });
    const signed = { id: String(receipt!.headers['webhook-id']), timestamp: String(receipt!.headers['webhook-timestamp']), signature: String(receipt!.headers['webhook-signature']) };
    expect(verifyWebhook(customerWebhookSecret(masterSecret, 'acme'), signed, receipt!.body)).toBe(true);
  });

  it.each(['TEXT_SUCCESSFUL', 'TEXT_PENDING', 'TEXT_QUEUED', 'TEXT_CARRIER_UNREACHABLE'])(
    'an event of type %s that is not final changes nothing visible, forwards nothing, and is kept in the history',
    async (eventType) => {
      const { messageId, providerId, path } = await send(`nonfinal-${eventType.toLowerCase()}`);
      const before = await stateOf(messageId);
      await postEvent(smsEvent({ eventType, isFinal: false, messageId: providerId, context: { message_id: messageId }, at: Date.parse('2026-11-25T09:00:00.250Z') }));
      expect(await stateOf(messageId)).toEqual(before);
      expect(before).toMatchObject({ status: 'sent', received_at: null });
      expect((await storedMessage(messageId)).events).toEqual([
        { type: eventType, status: eventType.replace(/^TEXT_/, ''), final: false, occurred_at: '2026-11-25T09:00:00.250+00:00', recorded_at: expect.stringMatching(isoWithOffset) },
      ]);
      await settleForwards();
      expect(receiver.requestsTo(path)).toEqual([]);
    },
  );
});

describe('duplicates and reordering', () => {
  it('takes a repeated final event once, never lets a later final change the state, and forwards one receipt', async () => {
    const { messageId, providerId, path } = await send('dup');
    const delivered = smsEvent({ eventType: 'TEXT_DELIVERED', isFinal: true, messageId: providerId, context: { message_id: messageId } });
    await Promise.all([postEvent(delivered), postEvent(delivered), postEvent(delivered)]);
    const state = await stateOf(messageId);
    expect(state.status).toBe('delivered');
    await postEvent(smsEvent({ eventType: 'TEXT_CARRIER_UNREACHABLE', isFinal: true, messageId: providerId, context: { message_id: messageId } }));
    await postEvent(smsEvent({ eventType: 'TEXT_TTL_EXPIRED', isFinal: true, messageId: providerId, context: { message_id: messageId } }));
    expect(await stateOf(messageId)).toEqual(state);
    await settleForwards();
    expect(receiver.requestsTo(path)).toHaveLength(1);
    expect(JSON.parse(receiver.requestsTo(path)[0]!.body).status).toBe('delivered');
    // The history keeps each distinct event once, in arrival order; the late finals are there, the repeats are not.
    expect((await storedMessage(messageId)).events?.map((event) => [event.type, event.final])).toEqual([
      ['TEXT_DELIVERED', true],
      ['TEXT_CARRIER_UNREACHABLE', true],
      ['TEXT_TTL_EXPIRED', true],
    ]);
  });

  it('lets exactly one of concurrent conflicting finals win, and forwards only its receipt', async () => {
    const { messageId, providerId, path } = await send('race');
    const types = ['TEXT_DELIVERED', 'TEXT_TTL_EXPIRED', 'TEXT_SPAM', 'TEXT_DELIVERED', 'TEXT_TTL_EXPIRED', 'TEXT_SPAM'];
    await Promise.all(types.map((eventType) => postEvent(smsEvent({ eventType, isFinal: true, messageId: providerId, context: { message_id: messageId } }))));
    const state = await stateOf(messageId);
    await settleForwards();
    expect(receiver.requestsTo(path)).toHaveLength(1);
    expect(JSON.parse(receiver.requestsTo(path)[0]!.body).status).toBe(state.status);
  });

  it('keeps an event that is not final but arrives after the final one in the history only', async () => {
    const { messageId, providerId, path } = await send('late');
    await postEvent(smsEvent({ eventType: 'TEXT_DELIVERED', isFinal: true, messageId: providerId, context: { message_id: messageId }, at: Date.parse('2026-11-25T10:00:05Z') }));
    const state = await stateOf(messageId);
    await postEvent(smsEvent({ eventType: 'TEXT_SUCCESSFUL', isFinal: false, messageId: providerId, context: { message_id: messageId }, at: Date.parse('2026-11-25T10:00:01Z') }));
    expect(await stateOf(messageId)).toEqual(state);
    expect((await storedMessage(messageId)).events?.map((event) => [event.type, event.occurred_at])).toEqual([
      ['TEXT_DELIVERED', '2026-11-25T10:00:05.000+00:00'],
      ['TEXT_SUCCESSFUL', '2026-11-25T10:00:01.000+00:00'],
    ]);
    await settleForwards();
    expect(receiver.requestsTo(path)).toHaveLength(1);
  });

  it('finds the message by messageId when the event carries no context', async () => {
    const { messageId, providerId } = await send('noctx');
    await postEvent(smsEvent({ eventType: 'TEXT_TTL_EXPIRED', isFinal: true, messageId: providerId }));
    expect((await stateOf(messageId)).status).toBe('expired');
  });
});

describe('an event before its message is recorded', () => {
  it('fails the invocation so that it is retried, and records the event once the message exists', async () => {
    const consume = recordSmsEvents({ table: { db, tableName: runtime.tableName }, queue: undefined, now: () => new Date() });
    const messageId = uniqueId('early');
    const event = buildSnsEvent('sms-events', JSON.stringify(smsEvent({ eventType: 'TEXT_DELIVERED', isFinal: true, messageId: 'not-yet', context: { message_id: messageId } })));
    await expect(consume(event, lambdaContext({ name: 'record-sms-events' }))).rejects.toThrow(`no message with message_id "${messageId}" yet`);
    expect((await postSms(runtime.baseUrl, acme(), sims.acme.iccid, { message: 'early', message_id: messageId })).status).toBe(202);
    // Lambda's retry of the same event:
    await expect(consume(event, lambdaContext({ name: 'record-sms-events' }))).resolves.toBeUndefined();
    expect((await stateOf(messageId)).status).toBe('delivered');
  });

  it('sends an event whose message never appears to the dead-letter queue after the retries, with the event', async () => {
    const event = smsEvent({ eventType: 'TEXT_DELIVERED', isFinal: true, messageId: 'never-sent', context: { message_id: uniqueId('never') } });
    await postEvent(event);
    const client = testSqsClient();
    try {
      const received = await client.send(new ReceiveMessageCommand({ QueueUrl: runtime.topics.deadLetterUrls['sms-events'], MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      const failures = (received.Messages ?? []).map((message) => JSON.parse(message.Body!));
      expect(failures).toEqual([
        {
          requestContext: { condition: 'RetriesExhausted', approximateInvokeCount: 3, functionArn: expect.stringMatching(/:function:record-sms-events$/) },
          requestPayload: { Records: [expect.objectContaining({ EventSource: 'aws:sns', Sns: expect.objectContaining({ Message: JSON.stringify(event) }) })] },
          responseContext: { functionError: 'Unhandled' },
          responsePayload: { errorMessage: `no message with message_id "${event.context.message_id}" yet` },
        },
      ]);
    } finally {
      client.destroy();
    }
  });

  it('drops an event that is not an SMS event, without retrying it', async () => {
    const before = await queueDepth(runtime.topics.deadLetterUrls['sms-events']);
    await postEvent({ eventType: 'VOICE_COMPLETED', isFinal: true, messageId: 'x' });
    await postEvent({ isFinal: true, messageId: 'x' });
    expect(await queueDepth(runtime.topics.deadLetterUrls['sms-events'])).toBe(before);
    const answer = await fetch(`${runtime.baseUrl}/_local/aws-sms/events`, { method: 'POST', body: 'not json' });
    expect([answer.status, await answer.json()]).toEqual([400, { detail: 'The body is not valid JSON.', code: 'invalid_json' }]);
  });
});

describe("a fulfilment SMS's events", () => {
  it('are recorded on its effect, the first final one as its delivery status, with no callback', async () => {
    const orderId = `order-${process.pid}-${Date.now()}`;
    const effect: FulfilmentEffectItem = {
      ...key.fulfilmentEffect(orderId, 'sms'),
      type: 'fulfilment_effect',
      order_id: orderId,
      effect: 'sms',
      status: 'done',
      claim: 'worker',
      claimed_at: '2026-11-25T12:00:00.000Z',
      detail: { provider_message_id: 'p-1', to: '+447700900123', reference: `${orderId}.sms` },
    };
    await db.send(new PutCommand({ TableName: runtime.tableName, Item: effect }));
    const context = { message_id: `${orderId}.sms`, order_id: orderId, effect: 'sms' };
    await postEvent(smsEvent({ eventType: 'TEXT_SUCCESSFUL', isFinal: false, messageId: 'p-1', context }));
    await postEvent(smsEvent({ eventType: 'TEXT_DELIVERED', isFinal: true, messageId: 'p-1', context }));
    await postEvent(smsEvent({ eventType: 'TEXT_SPAM', isFinal: true, messageId: 'p-1', context }));
    const stored = (await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.fulfilmentEffect(orderId, 'sms'), ConsistentRead: true }))).Item as FulfilmentEffectItem;
    expect(stored).toEqual({
      ...effect,
      delivery_status: 'delivered',
      delivery_received_at: expect.stringMatching(isoWithOffset),
      delivery_events: [
        expect.objectContaining({ type: 'TEXT_SUCCESSFUL', final: false }),
        expect.objectContaining({ type: 'TEXT_DELIVERED', final: true }),
        expect.objectContaining({ type: 'TEXT_SPAM', final: true }),
      ],
      delivery_event_keys: expect.any(Set),
    });
    expect(stored.delivery_event_keys?.size).toBe(3);
  });
});
