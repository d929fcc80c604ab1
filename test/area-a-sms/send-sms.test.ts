import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestRuntime } from '../support/runtime';
import { getSms, postReceipt, postSms, type TestResponse } from './support/http';
import { startProviderSwitch, type ProviderSwitch } from './support/provider-switch';
import { callerPool, sims, smsSeed } from './support/seed';
import { handedMessages, providerAt, providerErrorDetail, providerTarget, smsProvider } from './support/sms-network';

let provider: ProviderSwitch;
const acme = callerPool('acme');
const globex = callerPool('globex');

const runtime = useTestRuntime(
  async () => {
    // The provider is reached through a switch (in front of the runtime's SMS simulator, or of
    // the AWS emulator with SMS_PROVIDER=aws) that a test can take down: SMS_PROVIDER_URL and
    // AWS_SMS_ENDPOINT are read once, when the function starts.
    provider = await startProviderSwitch();
    return {
      seed: smsSeed,
      env: {
        // Receipts are posted by hand in these tests: the simulator's own come far too late.
        SMS_SIMULATOR_DELAY_MS: '600000',
        ...providerAt(provider.url),
        CALLBACK_ALLOWED_HOSTS: '127.0.0.1',
        CALLBACK_SIGNING_SECRET: 'test-master-secret',
      },
    };
  },
  {
    prepare: (started) => {
      provider.target = providerTarget(started);
    },
    stopAfter: async () => {
      await provider?.stop();
    },
  },
);

/** What a refusal of a non-public callback URL says locally after its reason: the runtime's inbox and CALLBACK_ALLOWED_HOSTS. */
const localHint = () =>
  ` Locally, the built-in HTTPS inbox ${runtime.inbox.url} is accepted, and CALLBACK_ALLOWED_HOSTS=host[:port],... (a variable of npm start) allows other hosts.`;

const send = (iccid: string, body: unknown, caller = acme()) => postSms(runtime.baseUrl, caller, iccid, body);
const error = (status: number, code: string, detail: string) => ({
  status,
  contentType: 'application/json',
  body: { detail, code },
});
const view = (response: TestResponse) => ({ status: response.status, contentType: response.contentType, body: response.body });
const accepted = (messageId: string, sim: { iccid: string; msisdn: string | null }) => ({
  status: 202,
  contentType: 'application/json',
  body: { message_id: messageId, status: 'sent', iccid: sim.iccid, msisdn: sim.msisdn },
});
let counter = 0;
const uniqueId = (label: string) => `${label}-${process.pid}-${(counter += 1)}`;

describe('POST /developer/api/sims/<iccid>/sms/ rules, in order', () => {
  it('1. answers 400 invalid_json for a body that is not JSON', async () => {
    expect(view(await send(sims.acme.iccid, '{"message": '))).toEqual(
      error(400, 'invalid_json', 'The request body is not valid JSON.'),
    );
  });

  it('2. answers 400 message_required without a message, or with an empty or non-string one', async () => {
    const required = error(400, 'message_required', 'The message field is required.');
    expect(view(await send(sims.acme.iccid, {}))).toEqual(required);
    expect(view(await send(sims.acme.iccid, { message: null }))).toEqual(required);
    expect(view(await send(sims.acme.iccid, { message: '' }))).toEqual(required);
    expect(view(await send(sims.acme.iccid, []))).toEqual(required);
    expect(view(await send(sims.acme.iccid, { message: 42 }))).toEqual(
      error(400, 'message_required', 'The message field must be a string.'),
    );
  });

  it('3. counts characters, not bytes: 160 accepted, 161 refused with message_too_long, 160 emoji accepted', async () => {
    const tooLong = error(400, 'message_too_long', 'message must be at most 160 characters.');
    expect(view(await send(sims.acme.iccid, { message: 'a'.repeat(161) }))).toEqual(tooLong);
    expect(view(await send(sims.acme.iccid, { message: '😀'.repeat(161) }))).toEqual(tooLong);
    const plain = uniqueId('plain160');
    expect(view(await send(sims.acme.iccid, { message: 'a'.repeat(160), message_id: plain }))).toEqual(accepted(plain, sims.acme));
    const emoji = uniqueId('emoji160');
    expect(view(await send(sims.acme.iccid, { message: '😀'.repeat(160), message_id: emoji }))).toEqual(
      accepted(emoji, sims.acme),
    );
  });

  it('4. answers message_id_too_long over 48 characters and invalid_message_id for a non-string', async () => {
    expect(view(await send(sims.acme.iccid, { message: 'hi', message_id: 'x'.repeat(49) }))).toEqual(
      error(400, 'message_id_too_long', 'message_id must be at most 48 characters.'),
    );
    const invalid = error(
      400,
      'invalid_message_id',
      'message_id must be a non-empty string of well-formed Unicode without U+FFFE, U+FFFF or control characters.',
    );
    expect(view(await send(sims.acme.iccid, { message: 'hi', message_id: 42 }))).toEqual(invalid);
    expect(view(await send(sims.acme.iccid, { message: 'hi', message_id: '' }))).toEqual(invalid);
    const longest = `${'é'.repeat(30)}${uniqueId('m')}`.slice(0, 48);
    expect(view(await send(sims.acme.iccid, { message: 'hi', message_id: longest }))).toEqual(accepted(longest, sims.acme));
  });

  it('4. answers invalid_message_id for a message_id beginning mo- in any case, even over 48 characters, and reserves and sends nothing', async () => {
    const reserved = error(
      400,
      'invalid_message_id',
      'message_id must not begin with "mo-" (in any case): ids beginning mo- are those of messages from SIMs.',
    );
    const ids = ['mo-', `mo-${randomUUID()}`, `MO-${randomUUID()}`, `Mo-${uniqueId('x')}`, `mO-${uniqueId('y')}`, `mo-${'x'.repeat(46)}`];
    for (const messageId of ids) {
      expect(view(await send(sims.acme.iccid, { message: 'shadow', message_id: messageId, callback_url: 'https://127.0.0.1/hook' })), messageId).toEqual(reserved);
    }
    // Judged before the SIM (an unknown ICCID is still the body's error) and after the id's characters.
    expect(view(await send('8944500000009999999', { message: 'hi', message_id: `mo-${randomUUID()}` }))).toEqual(reserved);
    expect(view(await send(sims.acme.iccid, { message: 'hi', message_id: 'mo-\u0000' }))).toEqual(
      error(400, 'invalid_message_id', 'message_id must be a non-empty string of well-formed Unicode without U+FFFE, U+FFFF or control characters.'),
    );
    // Nothing was handed to the provider, and nothing reserved: the same ids are free for the read-back's 404.
    expect((await handedMessages(runtime)).filter((message) => ids.includes(message.reference))).toEqual([]);
    expect(view(await getSms(runtime.baseUrl, acme(), sims.acme.iccid, ids[1]!))).toEqual(error(404, 'not_found', 'Not found.'));
    // Only the prefix is reserved: mo without the hyphen, or mo- further in, is an ordinary id.
    for (const messageId of [uniqueId('mox'), `x-mo-${uniqueId('z')}`, `mo_${uniqueId('w')}`]) {
      expect(view(await send(sims.acme.iccid, { message: 'hi', message_id: messageId }))).toEqual(accepted(messageId, sims.acme));
    }
  });

  it('5. answers invalid_callback_url for a URL that is not HTTPS or not publicly reachable', async () => {
    const body = (callback_url: unknown) => ({ message: 'hi', callback_url });
    expect(view(await send(sims.acme.iccid, body('http://127.0.0.1/hook')))).toEqual(
      error(400, 'invalid_callback_url', 'callback_url must use HTTPS.'),
    );
    expect(view(await send(sims.acme.iccid, body('https://localhost/hook')))).toEqual(
      error(400, 'invalid_callback_url', `callback_url must point to a publicly reachable host; localhost resolves to a loopback address.${localHint()}`),
    );
    expect(view(await send(sims.acme.iccid, body('https://169.254.169.254/latest/meta-data/')))).toEqual(
      error(400, 'invalid_callback_url', `callback_url must point to a publicly reachable host; 169.254.169.254 is link-local (cloud metadata).${localHint()}`),
    );
    // 127.0.0.1 itself is allowed in this runtime (CALLBACK_ALLOWED_HOSTS); 127.0.0.2 is not.
    expect(view(await send(sims.acme.iccid, body('https://2130706434/')))).toEqual(
      error(400, 'invalid_callback_url', `callback_url must point to a publicly reachable host; 127.0.0.2 is loopback.${localHint()}`),
    );
    expect(view(await send(sims.acme.iccid, body('https://user:pw@127.0.0.1/')))).toEqual(
      error(400, 'invalid_callback_url', 'callback_url must not contain a user name or password.'),
    );
    expect(view(await send(sims.acme.iccid, body(['https://x/'])))).toEqual(
      error(400, 'invalid_callback_url', 'callback_url must be a non-empty string.'),
    );
  });

  it('checks the body before the ICCID: a bad body to an unknown SIM is the body error', async () => {
    expect(view(await send('8944500000009999999', { message: 'a'.repeat(161) }))).toEqual(
      error(400, 'message_too_long', 'message must be at most 160 characters.'),
    );
  });

  it('answers 404 not_found for an ICCID that is unknown, out of scope, or not 1-20 digits', async () => {
    const notFound = error(404, 'not_found', 'Not found.');
    expect(view(await send('8944500000009999999', { message: 'hi' }))).toEqual(notFound);
    expect(view(await send(sims.globex.iccid, { message: 'hi' }))).toEqual(notFound);
    expect(view(await send('89445000000000020011', { message: 'hi' }))).toEqual(notFound);
    expect(view(await send('894450000000000200111', { message: 'hi' }))).toEqual(notFound);
    expect(view(await send('not-an-iccid', { message: 'hi' }))).toEqual(notFound);
  });

  it('answers a value shaped like a SIM id (up to 15 digits) with a 404 whose detail says the SMS routes take the ICCID, found or not', async () => {
    const hint = error(
      404,
      'not_found',
      "Not found: the SMS routes /developer/api/sims/<iccid>/sms/ take the SIM's ICCID (19 or 20 digits); a SIM id (up to 15 digits) is what GET /developer/api/sims/<sim_id>/ takes, and its answer's iccid is what goes here.",
    );
    // The id of an acme SIM, of a globex SIM and of no SIM: the same answer, from the shape alone.
    expect(view(await send('2001', { message: 'hi' }))).toEqual(hint);
    expect(view(await send('2005', { message: 'hi' }))).toEqual(hint);
    expect(view(await send('999999999999999', { message: 'hi' }))).toEqual(hint);
    expect(view(await getSms(runtime.baseUrl, acme(), '2001', 'no-such-message'))).toEqual(hint);
  });

  it('6. answers 409 duplicate_message_id for an id already used, by this or another customer', async () => {
    const messageId = uniqueId('dup');
    expect(view(await send(sims.acme.iccid, { message: 'first', message_id: messageId }))).toEqual(accepted(messageId, sims.acme));
    const duplicate = error(409, 'duplicate_message_id', 'message_id has already been used.');
    expect(view(await send(sims.north.iccid, { message: 'again', message_id: messageId }))).toEqual(duplicate);
    expect(view(await send(sims.globex.iccid, { message: 'other customer', message_id: messageId }, globex()))).toEqual(duplicate);
  });

  it('6. gives exactly one 202 and seven 409s to 8 concurrent submissions of one id', async () => {
    const messageId = uniqueId('race');
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        index % 2 === 0
          ? send(sims.acme.iccid, { message: `racer ${index}`, message_id: messageId })
          : send(sims.globex.iccid, { message: `racer ${index}`, message_id: messageId }, globex()),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([202, 409, 409, 409, 409, 409, 409, 409]);
    for (const response of responses.filter((each) => each.status === 409)) {
      expect(view(response)).toEqual(error(409, 'duplicate_message_id', 'message_id has already been used.'));
    }
    expect((await handedMessages(runtime)).filter((message) => message.reference === messageId)).toHaveLength(1);
  });

  it('7. answers 422 no_msisdn for a SIM without MSISDN, and the id stays usable', async () => {
    const messageId = uniqueId('nomsisdn');
    expect(view(await send(sims.noMsisdn.iccid, { message: 'hi', message_id: messageId }))).toEqual(
      error(422, 'no_msisdn', 'The SIM has no MSISDN.'),
    );
    expect(view(await send(sims.acme.iccid, { message: 'hi', message_id: messageId }))).toEqual(accepted(messageId, sims.acme));
  });

  it("8. answers 503 sms_not_configured when SMS is not enabled on the SIM owner's customer", async () => {
    const messageId = uniqueId('quiet');
    expect(view(await send(sims.quiet.iccid, { message: 'hi', message_id: messageId }))).toEqual(
      error(503, 'sms_not_configured', 'SMS is not enabled on the account.'),
    );
    expect(view(await send(sims.north.iccid, { message: 'hi', message_id: messageId }))).toEqual(accepted(messageId, sims.north));
  });

  it('9. answers 502 sms_provider_error when the provider refuses, and the id is not burned', async () => {
    const messageId = uniqueId('provider-error');
    expect(view(await send(sims.acme.iccid, { message: 'boom [provider-error]', message_id: messageId }))).toEqual(
      error(502, 'sms_provider_error', providerErrorDetail),
    );
    expect(view(await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId))).toEqual(error(404, 'not_found', 'Not found.'));
    expect(view(await send(sims.acme.iccid, { message: 'retry', message_id: messageId }))).toEqual(accepted(messageId, sims.acme));
  });

  it('9. answers 502 sms_provider_unreachable when the provider is down, and the id is not burned', async () => {
    const messageId = uniqueId('provider-down');
    provider.down = true;
    try {
      expect(view(await send(sims.acme.iccid, { message: 'hello', message_id: messageId }))).toEqual(
        error(502, 'sms_provider_unreachable', 'The SMS provider could not be reached.'),
      );
    } finally {
      provider.down = false;
    }
    expect(view(await send(sims.acme.iccid, { message: 'hello again', message_id: messageId }))).toEqual(
      accepted(messageId, sims.acme),
    );
  });

  it('generates a UUID message_id when none is given, and hands the provider id, MSISDN and text', async () => {
    const response = await send(sims.north.iccid, { message: 'generated id', callback_url: 'https://127.0.0.1:9/hook' });
    expect(view(response)).toEqual({
      status: 202,
      contentType: 'application/json',
      body: {
        message_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        status: 'sent',
        iccid: sims.north.iccid,
        msisdn: sims.north.msisdn,
      },
    });
    for (const name of ['Minute', 'Hour', 'Burst']) {
      expect(response.headers.get(`x-ratelimit-limit-${name.toLowerCase()}`)).toMatch(/^\d+$/);
      expect(response.headers.get(`x-ratelimit-remaining-${name.toLowerCase()}`)).toMatch(/^\d+$/);
    }
    const messageId = (response.body as { message_id: string }).message_id;
    expect((await handedMessages(runtime)).filter((message) => message.reference === messageId)).toEqual([
      { reference: messageId, to: sims.north.msisdn, text: 'generated id' },
    ]);
    if (smsProvider === 'http') {
      const simulator = (await (await fetch(`${runtime.smsSimulatorUrl}/messages`)).json()) as { messages: { reference: string; receipt_url: string }[] };
      expect(simulator.messages.filter((message) => message.reference === messageId).map((message) => message.receipt_url)).toEqual([
        `${runtime.baseUrl}/sms-provider/receipts`,
      ]);
    }
  });
});

describe('receipts and the message state machine', () => {
  const secret = () => runtime.env.SMS_RECEIPT_SECRET!;
  const receipt = (reference: string, status: string) => ({
    reference,
    provider_message_id: 'sim-x',
    status,
    occurred_at: '2026-11-22T10:00:00.000Z',
  });
  const sendOne = async (label: string) => {
    const messageId = uniqueId(label);
    expect((await send(sims.acme.iccid, { message: 'state', message_id: messageId })).status).toBe(202);
    return messageId;
  };
  const isoWithOffset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;

  it('refuses a receipt whose signature is missing, malformed or wrong with 401 invalid_signature', async () => {
    const messageId = await sendOne('badsig');
    const invalid = error(401, 'invalid_signature', 'The X-Provider-Signature header is missing or does not match the body.');
    expect(view(await postReceipt(runtime.baseUrl, secret(), receipt(messageId, 'delivered'), null))).toEqual(invalid);
    expect(view(await postReceipt(runtime.baseUrl, 'wrong-secret', receipt(messageId, 'delivered')))).toEqual(invalid);
    expect(view(await postReceipt(runtime.baseUrl, secret(), receipt(messageId, 'delivered'), 'sha256=abc'))).toEqual(invalid);
    expect(view(await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId))).toMatchObject({ status: 200, body: { status: 'sent' } });
  });

  it('moves sent to delivered once; repeats are idempotent and a terminal state never moves', async () => {
    const messageId = await sendOne('machine');
    const sent = await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId);
    expect(view(sent)).toEqual({
      status: 200,
      contentType: 'application/json',
      body: {
        message_id: messageId,
        direction: 'mt',
        iccid: sims.acme.iccid,
        msisdn: sims.acme.msisdn,
        status: 'sent',
        submitted_at: expect.stringMatching(isoWithOffset),
        received_at: null,
      },
    });
    const ok = (status: string, outcome: string) => ({
      status: 200,
      contentType: 'application/json',
      body: { reference: messageId, status, outcome },
    });
    expect(view(await postReceipt(runtime.baseUrl, secret(), receipt(messageId, 'delivered')))).toEqual(ok('delivered', 'recorded'));
    const delivered = await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId);
    expect(delivered.body).toEqual({
      ...(sent.body as object),
      status: 'delivered',
      received_at: expect.stringMatching(isoWithOffset),
    });
    expect(view(await postReceipt(runtime.baseUrl, secret(), receipt(messageId, 'delivered')))).toEqual(ok('delivered', 'repeat'));
    expect(view(await postReceipt(runtime.baseUrl, secret(), receipt(messageId, 'failed')))).toEqual(ok('delivered', 'ignored'));
    expect(view(await postReceipt(runtime.baseUrl, secret(), receipt(messageId, 'expired')))).toEqual(ok('delivered', 'ignored'));
    expect((await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId)).body).toEqual(delivered.body);
  });

  it('lets exactly one of concurrent, conflicting receipts win', async () => {
    const messageId = await sendOne('conflict');
    const outcomes = await Promise.all(
      ['expired', 'failed', 'delivered', 'expired', 'failed', 'delivered'].map((status) =>
        postReceipt(runtime.baseUrl, secret(), receipt(messageId, status)),
      ),
    );
    const recorded = outcomes.filter((response) => (response.body as { outcome: string }).outcome === 'recorded');
    expect(recorded).toHaveLength(1);
    const final = (recorded[0]!.body as { status: string }).status;
    expect((await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId)).body).toMatchObject({ status: final });
  });

  it('acknowledges a receipt for an unknown message and refuses one that is not a receipt', async () => {
    expect(view(await postReceipt(runtime.baseUrl, secret(), receipt('never-sent', 'delivered')))).toEqual({
      status: 200,
      contentType: 'application/json',
      body: { reference: 'never-sent', status: null, outcome: 'unknown_reference' },
    });
    expect(view(await postReceipt(runtime.baseUrl, secret(), receipt('never-sent', 'read')))).toEqual(
      error(400, 'invalid_receipt', 'status must be one of delivered, expired, failed.'),
    );
    expect(view(await postReceipt(runtime.baseUrl, secret(), 'not json'))).toEqual(
      error(400, 'invalid_json', 'The receipt body is not valid JSON.'),
    );
  });
});

describe('GET /developer/api/sims/<iccid>/sms/<message_id>/ (reconciliation)', () => {
  it('answers 404 not_found for an unknown id, another ICCID, or a caller whose scope lacks the SIM', async () => {
    const messageId = uniqueId('recon');
    expect((await send(sims.north.iccid, { message: 'hi', message_id: messageId })).status).toBe(202);
    const notFound = error(404, 'not_found', 'Not found.');
    expect(view(await getSms(runtime.baseUrl, acme(), sims.north.iccid, 'no-such-message'))).toEqual(notFound);
    expect(view(await getSms(runtime.baseUrl, acme(), sims.acme.iccid, messageId))).toEqual(notFound);
    expect(view(await getSms(runtime.baseUrl, globex(), sims.north.iccid, messageId))).toEqual(notFound);
    expect(await getSms(runtime.baseUrl, acme(), sims.north.iccid, messageId)).toMatchObject({
      status: 200,
      body: { message_id: messageId, direction: 'mt', iccid: sims.north.iccid, status: 'sent', received_at: null },
    });
  });
});
