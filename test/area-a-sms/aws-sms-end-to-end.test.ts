import { randomUUID } from 'node:crypto';
import { eventually, present } from '../support/eventually';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { customerWebhookSecret, verifyWebhook } from '../../shared/callbacks/signing';
import type { SmsMessageItem } from '../../shared/db/items';
import { key } from '../../shared/db/keys';
import { inboundMessageId } from '../../shared/sms/inbound';
import { logEntries, logLinesOf, metricLines } from '../support/log-lines';
import { testDynamoClient } from '../support/resources';
import { call } from '../area-a-webhooks/support/http';
import { getSms, postSms } from './support/http';
import type { ReceivedRequest } from '../support/https-receiver';
import { isoWithOffset, masterSecret, uniqueId, useCallbackRuntime } from './support/callback-runtime';
import { callerPool, sims } from './support/seed';

/**
 * Issue #21 "Checked by", end to end over HTTP with SMS_PROVIDER=aws and nothing stubbed: the
 * SMS goes through the real SDK client to the embedded emulator, whose delivery events come
 * back through the `sms-events` topic into the consumer, which moves the message and forwards
 * the receipt to an HTTPS callback; an inbound SMS posted to `/_local/aws-sms/inbound` becomes
 * a stored `mo` message and a signed `sms.received` for the subscriptions of the SIM's
 * customer and its ancestors.
 */

const db = DynamoDBDocumentClient.from(testDynamoClient());
const acme = callerPool('acme');
const globex = callerPool('globex');

const { runtime, receiver, subscribers } = useCallbackRuntime(
  { SMS_PROVIDER: 'aws', SMS_SIMULATOR_DELAY_MS: '100', WEBHOOK_RETRY_SCHEDULE_SECONDS: '1' },
  { subscribers: true, stopAfter: () => db.destroy() },
);

const signedBy = (secret: string, request: { headers: Record<string, string | string[] | undefined>; body: string }) =>
  verifyWebhook(
    secret,
    { id: String(request.headers['webhook-id']), timestamp: String(request.headers['webhook-timestamp']), signature: String(request.headers['webhook-signature']) },
    request.body,
  );

describe('an SMS through AWS End User Messaging, end to end', () => {
  it.each([
    ['delivered', 'hello', 'TEXT_DELIVERED'],
    ['expired', 'hello [expired]', 'TEXT_TTL_EXPIRED'],
    ['failed', 'hello [failed]', 'TEXT_CARRIER_UNREACHABLE'],
  ])('is sent, its %s event moves it and the signed receipt reaches the HTTPS callback; the read-back shows it', async (status, text, finalType) => {
    const messageId = uniqueId(status);
    const path = `/ok/${messageId}`;
    const answer = await postSms(runtime.baseUrl, acme(), sims.north.iccid, { message: text, message_id: messageId, callback_url: `${receiver.url}${path}` });
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 202,
      body: { message_id: messageId, status: 'sent', iccid: sims.north.iccid, msisdn: sims.north.msisdn },
    });
    const sent = runtime.awsSms.messages().find((message) => message.context.message_id === messageId)!;
    expect(sent).toMatchObject({ destination: `+${sims.north.msisdn}`, body: text, message_type: 'TRANSACTIONAL', context: { message_id: messageId } });

    await eventually(() => expect(receiver.requestsTo(path).length > 0).toBe(true));
    const [receipt] = receiver.requestsTo(path);
    const body = JSON.parse(receipt!.body) as Record<string, unknown>;
    expect(body).toEqual({ message_id: messageId, iccid: sims.north.iccid, msisdn: sims.north.msisdn, status, received_at: expect.stringMatching(isoWithOffset) });
    expect(receipt!.headers['webhook-id']).toBe(`${messageId}:${status}`);
    expect(signedBy(customerWebhookSecret(masterSecret, 'acme'), receipt!)).toBe(true);

    expect((await getSms(runtime.baseUrl, acme(), sims.north.iccid, messageId)).body).toEqual({
      message_id: messageId,
      direction: 'mt',
      iccid: sims.north.iccid,
      msisdn: sims.north.msisdn,
      status,
      submitted_at: expect.stringMatching(isoWithOffset),
      received_at: body.received_at,
    });
    await runtime.topics.settled();
    const stored = (await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.message(messageId), ConsistentRead: true }))).Item as SmsMessageItem;
    expect(stored.provider_message_id).toBe(sent.message_id);
    expect(stored.GSI1PK).toBe(`SMS_PROVIDER_ID#${sent.message_id}`);
    // Both events in the history, in whichever order they were handled (a cold start may reorder them).
    expect(stored.events?.map((event) => [event.type, event.final]).sort(([, left], [, right]) => Number(left) - Number(right))).toEqual([
      ['TEXT_SUCCESSFUL', false],
      [finalType, true],
    ]);
  });
});

describe('inbound SMS (two-way)', () => {
  interface Created {
    id: string;
    secret: string;
  }
  const subscribe = async (caller: ReturnType<typeof acme>, body: Record<string, unknown>): Promise<Created & { events: string[] }> => {
    const answer = await call(runtime.baseUrl, caller, 'POST', '/developer/api/webhooks/', body);
    expect(answer.status).toBe(201);
    return answer.body as Created & { events: string[] };
  };
  const inbound = async (fields: Record<string, unknown>) => {
    const response = await fetch(`${runtime.baseUrl}/_local/aws-sms/inbound`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(fields) });
    expect([response.status, await response.json()]).toEqual([202, { topic: 'sms-inbound', sns_message_id: expect.any(String) }]);
    await runtime.topics.settled();
  };
  const json = (webhook: ReceivedRequest) => JSON.parse(webhook.body) as Record<string, unknown>;

  it('stores a message from a SIM, readable as mo, and delivers a signed sms.received to its customer and ancestors only', async () => {
    const acmeSubscription = await subscribe(acme(), { url: `${subscribers.url}/ok/acme-mo`, events: ['sms.received'] });
    const defaults = await subscribe(acme(), { url: `${subscribers.url}/ok/acme-default` });
    expect(defaults.events).toEqual(['line.activated', 'line.suspended', 'line.resumed', 'line.cancelled', 'usage.updated', 'identity.rotated', 'identity.verified', 'action.completed', 'action.failed']);
    await subscribe(globex(), { url: `${subscribers.url}/ok/globex-mo`, events: ['sms.received'] });

    // The SMS it answers: sent to the same SIM (of acme-north, below acme) through the emulator.
    const askedId = uniqueId('asked');
    expect((await postSms(runtime.baseUrl, acme(), sims.north.iccid, { message: 'STATUS?', message_id: askedId })).status).toBe(202);
    const asked = runtime.awsSms.messages().find((message) => message.context.message_id === askedId)!;

    const networkId = randomUUID();
    await inbound({
      originationNumber: `+${sims.north.msisdn}`,
      destinationNumber: '+447700900000',
      messageKeyword: 'KEYWORD_447700900000',
      messageBody: 'STATUS OK battery 87%',
      inboundMessageId: networkId,
      previousPublishedMessageId: asked.message_id,
    });
    const messageId = inboundMessageId(networkId);
    expect(messageId).toBe(`mo-${networkId}`);
    const readBack = await getSms(runtime.baseUrl, acme(), sims.north.iccid, messageId);
    expect({ status: readBack.status, body: readBack.body }).toEqual({
      status: 200,
      body: {
        message_id: messageId,
        direction: 'mo',
        iccid: sims.north.iccid,
        msisdn: sims.north.msisdn,
        status: 'received',
        message: 'STATUS OK battery 87%',
        received_at: expect.stringMatching(isoWithOffset),
        in_reply_to: askedId,
      },
    });
    // Another customer group's key does not see it.
    expect((await getSms(runtime.baseUrl, globex(), sims.north.iccid, messageId)).status).toBe(404);

    const webhook = await eventually(() => present(subscribers.requestsTo('/ok/acme-mo')[0]));
    expect(json(webhook)).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: 'sms.received',
      timestamp: expect.stringMatching(/\+00:00$/),
      data: {
        iccid: sims.north.iccid,
        msisdn: sims.north.msisdn,
        message_id: messageId,
        message: 'STATUS OK battery 87%',
        received_at: (readBack.body as { received_at: string }).received_at,
        in_reply_to: askedId,
      },
    });
    expect(String(webhook.headers['webhook-id'])).toBe(json(webhook).id);
    expect(signedBy(acmeSubscription.secret, webhook)).toBe(true);
    expect(signedBy(`whsec_${Buffer.alloc(32).toString('base64')}`, webhook)).toBe(false);

    // Taken once: the same inbound message again stores nothing new and sends no second event.
    await inbound({ originationNumber: `+${sims.north.msisdn}`, messageBody: 'STATUS OK battery 87%', inboundMessageId: networkId });
    expect((await getSms(runtime.baseUrl, acme(), sims.north.iccid, messageId)).body).toEqual(readBack.body);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(subscribers.requestsTo('/ok/acme-mo')).toHaveLength(1);
    expect(subscribers.requestsTo('/ok/acme-default')).toEqual([]);
    expect(subscribers.requestsTo('/ok/globex-mo')).toEqual([]);

    // The developer console shows the message from the SIM, and the SMS it answers.
    const page = await (await fetch(runtime.consoleUrl)).text();
    expect(page).toContain('SMS through AWS End User Messaging, and messages from SIMs');
    expect(page).toContain(`<code>${messageId}</code>`);
    expect(page).toContain('<pre>STATUS OK battery 87%</pre>');
    expect(page).toContain(`<code>${askedId}</code>`);
  });

  it("still reaches its own SIM's customer when another customer group tried to send an SMS under its id first", async () => {
    const networkId = randomUUID();
    const messageId = inboundMessageId(networkId);
    for (const shadow of [messageId, messageId.toUpperCase()]) {
      const refused = await postSms(runtime.baseUrl, acme(), sims.acme.iccid, { message: 'shadow', message_id: shadow });
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 400,
        body: { detail: 'message_id must not begin with "mo-" (in any case): ids beginning mo- are those of messages from SIMs.', code: 'invalid_message_id' },
      });
    }
    expect(runtime.awsSms.messages().filter((message) => message.context.message_id?.toLowerCase() === messageId)).toEqual([]);

    const lines = await logLinesOf(() => inbound({ originationNumber: `+${sims.globex.msisdn}`, messageBody: 'globex here', inboundMessageId: networkId }));
    expect(metricLines(lines).filter((line) => 'InboundSms' in line).map((line) => line.outcome)).toEqual(['stored']);
    const readBack = await getSms(runtime.baseUrl, globex(), sims.globex.iccid, messageId);
    expect({ status: readBack.status, body: readBack.body }).toEqual({
      status: 200,
      body: {
        message_id: messageId,
        direction: 'mo',
        iccid: sims.globex.iccid,
        msisdn: sims.globex.msisdn,
        status: 'received',
        message: 'globex here',
        received_at: expect.stringMatching(isoWithOffset),
        in_reply_to: null,
      },
    });
    expect((await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId)).status).toBe(404);
  });

  it('answers in_reply_to null when the previous message was not one sent to this SIM', async () => {
    const networkId = randomUUID();
    await inbound({ originationNumber: `+${sims.acme.msisdn}`, messageBody: 'hi', inboundMessageId: networkId, previousPublishedMessageId: 'somebody-elses' });
    expect((await getSms(runtime.baseUrl, acme(), sims.acme.iccid, `mo-${networkId}`)).body).toMatchObject({ direction: 'mo', in_reply_to: null, message: 'hi' });
  });

  it('refuses with 400 naming the field an inbound SMS the consumer would drop (no id, no sender, no text)', async () => {
    const post = async (fields: Record<string, unknown>) => {
      const response = await fetch(`${runtime.baseUrl}/_local/aws-sms/inbound`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(fields) });
      return [response.status, await response.json()];
    };
    const good = { originationNumber: `+${sims.acme.msisdn}`, messageBody: 'no id', inboundMessageId: 'x' };
    expect(await post({ ...good, inboundMessageId: undefined })).toEqual([
        400,
        {
          detail:
            "inboundMessageId must be a non-empty string of at most 200 characters: the network's id of the message (a repeat of an id is taken once); the consumer drops an inbound SMS without it.",
          code: 'invalid_request',
          field: 'inboundMessageId',
        },
      ]);
      expect(await post({ ...good, originationNumber: 'nobody' })).toEqual([
        400,
        {
          detail: 'originationNumber must be the sending SIM\'s number in E.164 (a string of at most 32 characters, such as "+447700900001"); the consumer drops an inbound SMS without it.',
          code: 'invalid_request',
          field: 'originationNumber',
        },
      ]);
      expect(await post({ ...good, messageBody: 7 })).toEqual([
        400,
        { detail: 'messageBody must be a string (the text the SIM sent); the consumer drops an inbound SMS without it.', code: 'invalid_request', field: 'messageBody' },
      ]);
  });

  it('logs, counts and drops a message from a number no SIM has, storing nothing', async () => {
    const networkId = randomUUID();
    const lines = await logLinesOf(() => inbound({ originationNumber: '+447700999999', messageBody: 'who am I', inboundMessageId: networkId }));
    expect(logEntries(lines).filter((line) => line.function_name === 'receive-inbound-sms' && line.level === 'WARN')).toEqual([
      expect.objectContaining({ message: 'inbound sms from an unknown number dropped', origination_number: '•••9999', consumer: 'receive-inbound-sms' }),
    ]);
    expect(metricLines(lines).filter((line) => 'InboundSms' in line).map((line) => [line.InboundSms, line.outcome])).toEqual([[1, 'unknown_number']]);
    const item = await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.message(`mo-${networkId}`), ConsistentRead: true }));
    expect(item.Item).toBeUndefined();
    for (const iccid of Object.values(sims).map((sim) => sim.iccid)) {
      expect((await getSms(runtime.baseUrl, acme(), iccid, `mo-${networkId}`)).status).toBe(404);
    }
  });
});
