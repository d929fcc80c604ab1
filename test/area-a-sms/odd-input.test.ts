import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { key } from '../../shared/db/keys';
import { useTestRuntime } from '../support/runtime';
import { testDynamoClient } from '../support/resources';
import { getSms, postReceipt, postSms, type TestResponse } from './support/http';
import { callerPool, sims, smsSeed, type Caller } from './support/seed';
import { handedMessages } from './support/sms-network';

/**
 * Issue #10, "no input reaches a 5xx": path parameters and body fields that become DynamoDB
 * keys or provider messages are checked for length and form before any table access, and
 * text that is not well-formed Unicode (lone surrogates, U+FFFE, U+FFFF, control characters)
 * is refused instead of being stored as `?` or sent as garbage.
 */

const acme = callerPool('acme');
const db = DynamoDBDocumentClient.from(testDynamoClient());

const runtime = useTestRuntime(
  {
    seed: smsSeed,
    env: { SMS_SIMULATOR_DELAY_MS: '600000', CALLBACK_ALLOWED_HOSTS: '127.0.0.1', CALLBACK_SIGNING_SECRET: 'test-master-secret' },
  },
  { stopAfter: () => db.destroy() },
);

const view = (response: TestResponse) => ({ status: response.status, contentType: response.contentType, body: response.body });
const error = (status: number, code: string, detail: string) => ({ status, contentType: 'application/json', body: { detail, code } });
const notFound = error(404, 'not_found', 'Not found.');
const invalidMessageId = error(
  400,
  'invalid_message_id',
  'message_id must be a non-empty string of well-formed Unicode without U+FFFE, U+FFFF or control characters.',
);
const invalidMessage = error(
  400,
  'invalid_message',
  'message must be well-formed Unicode text without U+FFFE, U+FFFF or control characters other than tab, line feed and carriage return.',
);
let counter = 0;
const uniqueId = (label: string) => `${label}-${process.pid}-${(counter += 1)}`;

/** A POST of a JSON text written by hand, so that it can hold escapes such as a lone `\ud800`. */
const sendRaw = (iccid: string, json: string, caller: Caller = acme()) => postSms(runtime.baseUrl, caller, iccid, json);

/** A GET with the path exactly as given (already percent-encoded). */
const getRaw = async (path: string, caller: Caller = acme()): Promise<TestResponse> => {
  const response = await fetch(`${runtime.baseUrl}${path}`, {
    headers: { Authorization: `Bearer ${caller.token}`, 'X-Customer-API-Key': caller.apiKey },
  });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), headers: response.headers, body: JSON.parse(text) };
};

const simulatorReferences = async (): Promise<string[]> => (await handedMessages(runtime)).map((message) => message.reference);

describe('GET /developer/api/sims/<iccid>/sms/<message_id>/ with a message_id that cannot exist', () => {
  it('answers 404 not_found, not 500, for a message_id of 2,045 to 10,000 characters', async () => {
    for (const length of [49, 2_045, 2_100, 10_000]) {
      const response = await getSms(runtime.baseUrl, acme(), sims.acme.iccid, 'x'.repeat(length));
      expect(view(response)).toEqual(notFound);
      expect(response.headers.get('x-ratelimit-limit-burst')).toBe('10');
    }
  });

  it('answers 404 not_found for a message_id with U+FFFF, U+FFFE, a control character or bytes that are not UTF-8', async () => {
    for (const encoded of ['X%EF%BF%BF', 'X%EF%BF%BE', 'X%00', 'X%7F', 'X%ED%A0%80', `${'%F0%9F%98%80'.repeat(600)}`]) {
      expect(view(await getRaw(`/developer/api/sims/${sims.acme.iccid}/sms/${encoded}/`))).toEqual(notFound);
    }
  });

  it('answers 404 not_found for an ICCID path parameter that is long, odd-length or not digits', async () => {
    for (const iccid of ['9'.repeat(21), '9'.repeat(10_000), 'abc', '%F0%9F%98%80', '894450000000000200%EF%BF%BF']) {
      expect(view(await getRaw(`/developer/api/sims/${iccid}/sms/some-id/`))).toEqual(notFound);
    }
  });
});

describe('POST /developer/api/sims/<iccid>/sms/: message_id must be well-formed Unicode', () => {
  it('answers 400 invalid_message_id for a lone surrogate, U+FFFE, U+FFFF or a control character, and sends nothing', async () => {
    const base = uniqueId('odd');
    for (const escaped of ['\\ud800', '\\udfff', '\\ud83d', '\\ufffe', '\\uffff', '\\u0000', '\\t', '\\u007f', '\\u0085']) {
      expect(view(await sendRaw(sims.acme.iccid, `{"message":"hi","message_id":"${base}${escaped}"}`))).toEqual(invalidMessageId);
    }
    expect((await simulatorReferences()).filter((reference) => reference.startsWith(base))).toEqual([]);
  });

  it('judges the form before the length: a 2,000-character id with U+FFFF is invalid_message_id, without it message_id_too_long', async () => {
    expect(view(await sendRaw(sims.acme.iccid, `{"message":"hi","message_id":"${'x'.repeat(2000)}\\uffff"}`))).toEqual(invalidMessageId);
    expect(view(await sendRaw(sims.acme.iccid, `{"message":"hi","message_id":"${'x'.repeat(2000)}"}`))).toEqual(
      error(400, 'message_id_too_long', 'message_id must be at most 48 characters.'),
    );
  });

  it('no longer lets X\\ud800 and X? collide: the first is refused, the second is an id of its own', async () => {
    const base = uniqueId('collide');
    expect(view(await sendRaw(sims.acme.iccid, `{"message":"hi","message_id":"${base}\\ud800"}`))).toEqual(invalidMessageId);
    expect(view(await sendRaw(sims.acme.iccid, `{"message":"hi","message_id":"${base}?"}`))).toEqual({
      status: 202,
      contentType: 'application/json',
      body: { message_id: `${base}?`, status: 'sent', iccid: sims.acme.iccid, msisdn: sims.acme.msisdn },
    });
  });

  it('accepts astral characters (well-formed surrogate pairs) and the noncharacters SQS carries', async () => {
    const messageId = `${uniqueId('astral')}😀\u{1fffe}\ufdd0`;
    expect(view(await postSms(runtime.baseUrl, acme(), sims.acme.iccid, { message: 'hi 😀', message_id: messageId }))).toEqual({
      status: 202,
      contentType: 'application/json',
      body: { message_id: messageId, status: 'sent', iccid: sims.acme.iccid, msisdn: sims.acme.msisdn },
    });
    expect(view(await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId))).toMatchObject({ status: 200, body: { message_id: messageId } });
  });
});

describe('POST /developer/api/sims/<iccid>/sms/: message must be well-formed Unicode', () => {
  it('answers 400 invalid_message for a lone surrogate, U+FFFE, U+FFFF or a control character, and sends nothing', async () => {
    for (const escaped of ['\\ud800', '\\udc00', '\\ufffe', '\\uffff', '\\u0000', '\\u001b', '\\u000b']) {
      const messageId = uniqueId('text');
      expect(view(await sendRaw(sims.acme.iccid, `{"message":"hi ${escaped} there","message_id":"${messageId}"}`))).toEqual(invalidMessage);
      expect(await simulatorReferences()).not.toContain(messageId);
    }
  });

  it('comes after message_required and before message_too_long', async () => {
    expect(view(await sendRaw(sims.acme.iccid, '{"message":42}'))).toEqual(error(400, 'message_required', 'The message field must be a string.'));
    expect(view(await sendRaw(sims.acme.iccid, `{"message":"${'a'.repeat(200)}\\ud800"}`))).toEqual(invalidMessage);
    expect(view(await sendRaw(sims.acme.iccid, `{"message":"\\ud800","message_id":"${'x'.repeat(49)}"}`))).toEqual(invalidMessage);
  });

  it('accepts tab, line breaks and emoji', async () => {
    const messageId = uniqueId('lines');
    expect(view(await postSms(runtime.baseUrl, acme(), sims.acme.iccid, { message: 'a\tb\r\nc 😀', message_id: messageId }))).toEqual({
      status: 202,
      contentType: 'application/json',
      body: { message_id: messageId, status: 'sent', iccid: sims.acme.iccid, msisdn: sims.acme.msisdn },
    });
  });

  it('answers 404 not_found for a send to an ICCID of 3,000 characters once the body passes', async () => {
    expect(view(await sendRaw('x'.repeat(3000), '{"message":"hi"}'))).toEqual(notFound);
    expect(view(await sendRaw('9'.repeat(3000), '{"message":"hi"}'))).toEqual(notFound);
  });
});

describe('POST /sms-provider/receipts with a reference that no message can have', () => {
  const secret = () => runtime.env.SMS_RECEIPT_SECRET!;
  const invalidReference = error(
    400,
    'invalid_receipt',
    'reference must be a message id: at most 48 characters of well-formed Unicode without U+FFFE, U+FFFF or control characters.',
  );
  const signedRaw = (json: string) => postReceipt(runtime.baseUrl, secret(), json);

  it('answers 400 invalid_receipt, not 500, for a signed receipt whose reference is about 2 KB', async () => {
    for (const length of [49, 2_048, 2_100, 100_000]) {
      expect(view(await postReceipt(runtime.baseUrl, secret(), { reference: 'r'.repeat(length), status: 'delivered' }))).toEqual(
        invalidReference,
      );
    }
  });

  it('answers 400 invalid_receipt for a reference with a lone surrogate, U+FFFE, U+FFFF or a control character', async () => {
    for (const escaped of ['\\ud800', '\\ufffe', '\\uffff', '\\u0000', '\\n']) {
      expect(view(await signedRaw(`{"reference":"m${escaped}","status":"delivered"}`))).toEqual(invalidReference);
    }
  });

  it('keeps a sane occurred_at and stores an over-long or odd one as null, still recording the receipt', async () => {
    for (const [occurredAt, stored] of [
      ['2026-11-22T10:00:00.000Z', '2026-11-22T10:00:00.000Z'],
      ['9'.repeat(500_000), null],
      [{ nested: [[[]]] }, null],
      ['2026\uffff', null],
    ] as const) {
      const messageId = uniqueId('occurred');
      expect((await postSms(runtime.baseUrl, acme(), sims.acme.iccid, { message: 'hi', message_id: messageId })).status).toBe(202);
      expect(view(await postReceipt(runtime.baseUrl, secret(), { reference: messageId, status: 'delivered', occurred_at: occurredAt }))).toEqual({
        status: 200,
        contentType: 'application/json',
        body: { reference: messageId, status: 'delivered', outcome: 'recorded' },
      });
      const { Item } = await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.message(messageId), ConsistentRead: true }));
      expect(Item?.provider_occurred_at).toBe(stored);
    }
  });

  it('still answers a plain unknown reference with 200 unknown_reference', async () => {
    expect(view(await postReceipt(runtime.baseUrl, secret(), { reference: 'r'.repeat(48), status: 'failed' }))).toEqual({
      status: 200,
      contentType: 'application/json',
      body: { reference: 'r'.repeat(48), status: null, outcome: 'unknown_reference' },
    });
  });
});
