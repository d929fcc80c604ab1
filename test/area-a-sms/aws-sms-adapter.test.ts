import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAwsSmsEmulator, demoAwsSms, serveAwsSmsEmulator, type AwsSmsEmulator, type ServedAwsSmsEmulator } from '../../local/aws-sms-emulator';
import { awsSmsProvider, e164 } from '../../shared/adapters/sms-provider/aws-sms-provider';
import { SmsProviderFailure } from '../../shared/adapters/sms-provider/provider';
import { closedPort } from './support/http';

// The recording stand-in is the local runtime's own emulator (local/aws-sms-emulator.ts), served
// on a port of its own: the real SDK client talks to it through its `endpoint`, and it checks and
// records each request as the SDK sent it.
let emulator: AwsSmsEmulator;
let served: ServedAwsSmsEmulator;
const published: { topic: string; message: Record<string, unknown> }[] = [];

beforeAll(async () => {
  // The SDK signs with the default credential chain, as in Lambda; the local runtime sets these too.
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
  emulator = createAwsSmsEmulator({ publish: (topic, message) => (published.push({ topic, message: JSON.parse(message) }), 'sns-1'), delayMs: 20, quiet: true });
  served = await serveAwsSmsEmulator(emulator);
});
afterAll(async () => served?.stop());

const provider = (overrides: Partial<Parameters<typeof awsSmsProvider>[0]> = {}) =>
  awsSmsProvider({ region: 'eu-west-2', endpoint: served.url, ...demoAwsSms, ...overrides });

/** The failure a submission rejects with: kind, log message and public detail. */
const failureOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SmsProviderFailure) return { kind: error.kind, detail: error.publicDetail };
    throw error;
  }
  throw new Error('submission succeeded');
};

describe('the AWS End User Messaging SMS adapter against a recording stand-in', () => {
  it('sends one SendTextMessage per SMS as the contract says, and resolves with the MessageId', async () => {
    const before = emulator.requests.length;
    const accepted = await provider().submit({ reference: 'm-aws-1', to: '447700900001', text: 'hello from the fleet' });
    expect(accepted).toEqual({ providerMessageId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const requests = emulator.requests.slice(before);
    expect(requests).toEqual([
      {
        target: 'PinpointSMSVoiceV2.SendTextMessage',
        contentType: 'application/x-amz-json-1.0',
        authorization: expect.stringMatching(/^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/eu-west-2\/sms-voice\/aws4_request, SignedHeaders=.*x-amz-target.*, Signature=[0-9a-f]{64}$/),
        body: {
          DestinationPhoneNumber: '+447700900001',
          OriginationIdentity: demoAwsSms.originationIdentity,
          ConfigurationSetName: demoAwsSms.configurationSet,
          MessageBody: 'hello from the fleet',
          MessageType: 'TRANSACTIONAL',
          Context: { message_id: 'm-aws-1' },
        },
        status: 200,
      },
    ]);
    expect(emulator.messages().at(-1)?.message_id).toBe(accepted.providerMessageId);
  });

  it('carries extra context beside message_id (a fulfilment SMS: order and effect) and sends a buyer phone as E.164', async () => {
    const before = emulator.requests.length;
    await provider().submit({ reference: 'o-1.sms', to: '+44 7700 900123', text: 'activated', context: { order_id: 'o-1', effect: 'sms' } });
    expect(emulator.requests.slice(before).map((request) => [request.body?.DestinationPhoneNumber, request.body?.Context])).toEqual([
      ['+447700900123', { order_id: 'o-1', effect: 'sms', message_id: 'o-1.sms' }],
    ]);
    expect(e164('447700900001')).toBe('+447700900001');
    expect(e164('no digits')).toBe('');
  });

  it('refuses a destination without digits without calling the API', async () => {
    const before = emulator.requests.length;
    expect(await failureOf(provider().submit({ reference: 'm-x', to: 'none', text: 'x' }))).toEqual({ kind: 'error', detail: 'the destination is not a phone number' });
    expect(emulator.requests.length).toBe(before);
  });

  it.each([
    ['ConflictException:DESTINATION_PHONE_NUMBER_OPTED_OUT', 'the destination number has opted out of SMS from this sender; it must opt in again before it can be messaged (ConflictException: DESTINATION_PHONE_NUMBER_OPTED_OUT)'],
    ['ConflictException:DESTINATION_PHONE_NUMBER_NOT_VERIFIED', 'the SMS account is in the sandbox and the destination number is not one of its verified destination numbers (ConflictException: DESTINATION_PHONE_NUMBER_NOT_VERIFIED)'],
    ['ValidationException:DESTINATION_COUNTRY_BLOCKED', 'SMS to the destination country are blocked for this account (ValidationException: DESTINATION_COUNTRY_BLOCKED)'],
    ['ValidationException', 'the SMS network refused the message as invalid (the destination number or the text) (ValidationException)'],
    ['ServiceQuotaExceededException:MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT', "the account's monthly SMS spend limit is reached; the operator must raise it (or wait for next month) (ServiceQuotaExceededException: MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT)"],
    ['AccessDeniedException:ACCOUNT_DISABLED', 'the SMS account is disabled (AccessDeniedException: ACCOUNT_DISABLED)'],
    ['ResourceNotFoundException', "the service's origination identity or configuration set does not exist; the operator must check SMS_ORIGINATION_IDENTITY and SMS_CONFIGURATION_SET (ResourceNotFoundException)"],
  ])('maps the error answer %s to `error` with a detail a developer can act on', async (marker, detail) => {
    const before = emulator.requests.length;
    expect(await failureOf(provider().submit({ reference: 'm-err', to: '447700900001', text: `no [aws-error:${marker}]` }))).toEqual({ kind: 'error', detail });
    // Client errors are not retried: one request.
    expect(emulator.requests.length - before).toBe(1);
  });

  it('sends a text whose error marker names a prototype member as an ordinary text (the emulator knows no such error)', async () => {
    for (const marker of ['constructor', 'toString', 'valueOf']) {
      expect(await provider().submit({ reference: `m-${marker}`, to: '447700900001', text: `hi [aws-error:${marker}]` })).toEqual({
        providerMessageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
    }
  });

  it('retries throttling and 5xx with the SDK, then maps them to `error`', async () => {
    const before = emulator.requests.length;
    expect(await failureOf(provider().submit({ reference: 'm-throttled', to: '447700900001', text: '[aws-error:ThrottlingException]' }))).toEqual({
      kind: 'error',
      detail: 'the SMS network is throttling the service; retry later (ThrottlingException)',
    });
    expect(emulator.requests.length - before).toBe(3);
    const between = emulator.requests.length;
    expect(await failureOf(provider().submit({ reference: 'm-5xx', to: '447700900001', text: '[aws-error:InternalServerException]' }))).toEqual({
      kind: 'error',
      detail: 'the SMS network failed; retry later (InternalServerException)',
    });
    expect(emulator.requests.length - between).toBe(3);
  });

  it('maps an origination identity or configuration set the API does not know to `error`', async () => {
    expect(await failureOf(provider({ configurationSet: 'nope' }).submit({ reference: 'm-cs', to: '447700900001', text: 'x' }))).toEqual({
      kind: 'error',
      detail: "the service's origination identity or configuration set does not exist; the operator must check SMS_ORIGINATION_IDENTITY and SMS_CONFIGURATION_SET (ResourceNotFoundException)",
    });
  });

  it('maps no connection to `unreachable`, after the SDK\'s retries', async () => {
    const port = await closedPort();
    expect(await failureOf(provider({ endpoint: `http://127.0.0.1:${port}` }).submit({ reference: 'm-down', to: '447700900001', text: 'x' }))).toEqual({
      kind: 'unreachable',
      detail: undefined,
    });
  });

  describe('an API that takes the request and never answers', () => {
    let silent: Server;
    let hits = 0;
    beforeAll(async () => {
      silent = createServer(() => {
        hits += 1;
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    });

    it('maps a timeout to `unreachable`, each attempt bounded by the request timeout', async () => {
      const started = Date.now();
      const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      expect(await failureOf(provider({ endpoint, requestTimeoutMs: 300 }).submit({ reference: 'm-slow', to: '447700900001', text: 'x' }))).toEqual({
        kind: 'unreachable',
        detail: undefined,
      });
      expect(hits).toBe(3);
      expect(Date.now() - started).toBeLessThan(5000);
    });
  });

  it('publishes a non-final TEXT_SUCCESSFUL and then the final event of the outcome, with the context', async () => {
    published.length = 0;
    const { providerMessageId } = await provider().submit({ reference: 'm-events', to: '447700900001', text: 'please fail [failed]' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(published.map(({ topic, message }) => ({ topic, type: message.eventType, final: message.isFinal, id: message.messageId, context: message.context, status: message.messageStatus }))).toEqual([
      { topic: 'sms-events', type: 'TEXT_SUCCESSFUL', final: false, id: providerMessageId, context: { message_id: 'm-events' }, status: 'SUCCESSFUL' },
      { topic: 'sms-events', type: 'TEXT_CARRIER_UNREACHABLE', final: true, id: providerMessageId, context: { message_id: 'm-events' }, status: 'CARRIER_UNREACHABLE' },
    ]);
  });
});
