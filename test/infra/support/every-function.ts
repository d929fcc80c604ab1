/**
 * Drives every function of the service through its own door in one local runtime started with
 * the demo seed and SMS through AWS End User Messaging (SMS_PROVIDER=aws): each route of the
 * route table over HTTP, each queue consumer through the messages its producers send, each
 * stream consumer through the table changes, each topic consumer through the AWS SMS
 * emulator's delivery events and an inbound SMS. The permission test records what they call
 * (local/aws-call-recorder.ts) meanwhile.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { LocalRuntime } from '../../../local/runtime';
import { demoSecrets } from '../../../local/demo-config';
import { pay } from '../../../local/pay-cli';
import { receiptSignature } from '../../../local/sms-simulator';
import { eventually } from '../../support/eventually';
import { exchange, parsedBody } from '../../support/request';
import type { SesSnsStandIn } from '../../support/ses-sns-stand-in';

/**
 * The demo seed (local/demo-seed.json), whose plans, stock and credentials the requests use;
 * nick's key (acme-north) also with sims:manage, so that the SIM actions are asked under a
 * rate limit of their own (ada's is spent by the other flows).
 */
export const demoSeed: unknown = (() => {
  const seed = JSON.parse(readFileSync(new URL('../../../local/demo-seed.json', import.meta.url), 'utf8')) as { api_keys: { key: string; scopes?: string[] }[] };
  for (const apiKey of seed.api_keys) if (apiKey.key.startsWith('devkey_demo02_')) apiKey.scopes = ['sims:read', 'sms:send', 'sims:manage'];
  return seed;
})();

/** Two developers of the demo seed, so that no request meets a rate limit (10 per 10 s a developer). */
const ada = {
  Authorization: 'Bearer bearer_demo01_KGpOyQNcdOyZbkBFTFoOxtzHq8STZHE6svi34zWH',
  'X-Customer-API-Key': 'devkey_demo01_u4rEE7naW8mHDKw3OaWDyyIdYxWDsU78E9kcE3oE',
};
const nick = {
  Authorization: 'Bearer bearer_demo06_pDbnIIAp00zKLMcyKHKi7M07QbbStdd8AgdmX2sa',
  'X-Customer-API-Key': 'devkey_demo02_JJ8X1o9585yMa6Fv4ngcVnSOgsR8uQYuY8CstQTu',
};
/** An active SIM of acme (ada's group) and one of acme-north (nick's), both with a number. */
const acmeSim = { id: 1001, iccid: '8944500000000001001', msisdn: '447700900001' };
const northSim = { iccid: '8944500000000001009' };

/** The checkout routes and their paths. */
const checkoutPaths = { 'checkout-esim': '/api/v1/checkout', 'checkout-physical': '/api/v1/physical-checkout', 'checkout-iot': '/api/v1/iot-physical-checkout' };

/** The body of a route's event fixture (events/<name>.json), a request that succeeds on the demo seed. */
const fixtureBody = (name: string): string => (JSON.parse(readFileSync(new URL(`../../../events/${name}.json`, import.meta.url), 'utf8')) as { body: string }).body;

/**
 * Sends a request (a route through the suite's request helper, which checks its request id; a
 * local mount of the runtime with fetch) and returns its JSON body; fails the test on a status
 * other than `expected`.
 */
const send = async (
  runtime: LocalRuntime,
  method: string,
  path: string,
  expected: number,
  options: { headers?: Record<string, string>; body?: unknown } = {},
): Promise<Record<string, unknown>> => {
  const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const headers = { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...options.headers };
  const answer = path.startsWith('/_local/')
    ? await fetch(new URL(path, runtime.baseUrl), { method, headers, body }).then(async (response) => ({ status: response.status, rawBody: await response.text() }))
    : await exchange(runtime.baseUrl, path, { method, headers, ...(body === undefined ? {} : { body }) });
  expect({ request: `${method} ${path}`, status: answer.status }, answer.rawBody).toEqual({ request: `${method} ${path}`, status: expected });
  return parsedBody(answer.rawBody, {}) as Record<string, unknown>;
};

/** A delivery receipt of the SMS provider's HTTP API (docs/sms-provider-api.md), signed as the provider signs it. */
const providerReceipt = (messageId: string): { headers: Record<string, string>; body: string } => {
  const body = JSON.stringify({ reference: messageId, provider_message_id: `sim-${messageId}`, status: 'delivered', occurred_at: new Date().toISOString() });
  return { headers: { 'X-Provider-Signature': receiptSignature(body, demoSecrets.SMS_RECEIPT_SECRET) }, body };
};

/**
 * Runs every function at least once on its ordinary path and waits until what each started has
 * finished: the receipts and lifecycle events in the webhook inbox, the orders' e-mails and
 * operations notification at the SES and SNS stand-in, the topics settled.
 */
export const driveEveryFunction = async (runtime: LocalRuntime, standIn: SesSnsStandIn): Promise<void> => {
  const inbox = (path: string) => new URL(path, runtime.inbox.url).href;
  const storefront = { Authorization: `Bearer ${demoSecrets.STOREFRONT_SERVICE_TOKEN}` };
  const now = new Date().toISOString();

  // Lifecycle events: a subscription (ada) to every event type, pointed at the inbox; then a SIM
  // changed (the table's stream: the events, the list index), an inbound SMS (the sms-inbound
  // topic) and operator feed records (its queue), among them a new SIM that claims a number.
  const lifecycle = async (): Promise<string> => {
    const webhook = await send(runtime, 'POST', '/developer/api/webhooks/', 201, {
      headers: ada,
      body: { url: inbox('/lifecycle'), events: ['line.activated', 'line.suspended', 'usage.updated', 'identity.rotated', 'identity.verified', 'sms.received'] },
    });
    await send(runtime, 'POST', `/_local/sims/${acmeSim.iccid}`, 200, { body: { status: 'suspended', data_used_mb: '42.00' } });
    await send(runtime, 'POST', '/_local/aws-sms/inbound', 202, {
      body: {
        originationNumber: `+${acmeSim.msisdn}`,
        destinationNumber: '+447700900000',
        messageKeyword: 'KEYWORD_447700900000',
        messageBody: 'permissions',
        inboundMessageId: randomUUID(),
        previousPublishedMessageId: randomUUID(),
      },
    });
    const feed = [
      { type: 'usage', source_time: now, iccid: acmeSim.iccid, month: now.slice(0, 7), data_used_mb: '43.50', data_overage_mb: '0.00', overage_cost: '0.00' },
      { type: 'sim_status', source_time: now, iccid: '8944500000000001008', status: 'suspended' },
      { type: 'sim', source_time: now, id: 5001, iccid: '8944500000000005001', msisdn: '447700905001', customer: 'acme', status: 'active', connection_status: 'active', tariff_name: 'IoT 1GB', base_cost: '5.00', data_bundle: null },
    ];
    await send(runtime, 'POST', '/_local/feed', 202, { headers: { 'Content-Type': 'application/x-ndjson' }, body: feed.map((line) => JSON.stringify(line)).join('\n') });
    return `/developer/api/webhooks/${String(webhook.id)}/`;
  };

  // SMS (nick): one whose receipt comes back through the provider's receipt route while it is
  // still `sent` (the emulator's final event waits SMS_SIMULATOR_DELAY_MS), one through AWS's events.
  const byReceipt = `perm-${randomUUID()}`;
  const byEvents = `perm-${randomUUID()}`;
  const smsPath = `/developer/api/sims/${northSim.iccid}/sms/`;
  const sms = async (): Promise<void> => {
    // The receipt route loaded first (a receipt of no message), so that its receipt is not late.
    await send(runtime, 'POST', '/sms-provider/receipts', 200, providerReceipt(`unknown-${randomUUID().slice(0, 8)}`));
    await send(runtime, 'POST', smsPath, 202, { headers: nick, body: { message: 'permissions', message_id: byReceipt, callback_url: inbox(`/receipts/${byReceipt}`) } });
    const receipt = await send(runtime, 'POST', '/sms-provider/receipts', 200, providerReceipt(byReceipt));
    expect(receipt.outcome, 'the receipt reached the receipt route after the final delivery event: raise SMS_SIMULATOR_DELAY_MS').toBe('recorded');
    await send(runtime, 'POST', smsPath, 202, { headers: nick, body: { message: 'permissions', message_id: byEvents, callback_url: inbox(`/receipts/${byEvents}`) } });
  };

  // The checkouts, each paid through the Stripe emulator: its signed event reaches the Stripe
  // webhook, whose queue message reaches the fulfilment consumer (SES, SNS, SMS).
  const checkouts = () =>
    Promise.all(
      Object.entries(checkoutPaths).map(async ([name, path]) => {
        const order = await send(runtime, 'POST', path, 201, { headers: { ...storefront, 'Idempotency-Key': randomUUID() }, body: fixtureBody(name) });
        expect((await pay(String(order.order_id), 'pay', runtime.baseUrl)).status).toBe(200);
      }),
    );

  // The reads and the fallbacks.
  const reads = () =>
    Promise.all([
      send(runtime, 'GET', '/developer/api/sims/?page=1&page_size=25&status=active', 200, { headers: nick }),
      send(runtime, 'GET', `/developer/api/sims/${acmeSim.id}/`, 200, { headers: ada }),
      send(runtime, 'GET', '/developer/api/webhooks/', 200, { headers: ada }),
      send(runtime, 'GET', '/developer/api/no-such-path', 404, { headers: ada }),
      send(runtime, 'GET', '/no-such-path', 404),
    ]);

  // A SIM action (nick, whose key has sims:manage here; SIM 1012 of acme-north, in stock): asked, sent to the operator emulator (the
  // operator-actions queue), confirmed through the feed; read back, listed; then the timeout's sweep.
  const simActions = async (): Promise<void> => {
    const actionsPath = '/developer/api/sims/1012/actions/';
    const action = await send(runtime, 'POST', actionsPath, 202, { headers: { ...nick, 'Idempotency-Key': randomUUID() }, body: { action: 'activate', reason: 'permissions' } });
    // The emulator received it: send-sim-action ran (polled on the local mount, clear of the rate limits).
    await eventually(async () => {
      const received = (await (await fetch(new URL('/_local/operator/requests', runtime.baseUrl))).json()) as { action_id: string }[];
      expect(received.map((request) => request.action_id)).toContain(action.action_id);
    }, 30_000, 200);
    await send(runtime, 'GET', `${actionsPath}${String(action.action_id)}/`, 200, { headers: nick });
    await send(runtime, 'GET', actionsPath, 200, { headers: nick });
    await runtime.schedules.runNow();
  };

  const [webhookPath] = await Promise.all([lifecycle(), sms(), checkouts(), reads(), simActions()]);
  await eventually(() => {
    const paths = runtime.inbox.deliveries().map((delivery) => delivery.path);
    expect(paths).toEqual(expect.arrayContaining([`/receipts/${byReceipt}`, `/receipts/${byEvents}`, '/lifecycle']));
    const calls = standIn.requests().map((request) => request.api);
    expect(calls.filter((api) => api === 'ses:SendEmail').length).toBeGreaterThanOrEqual(3);
    expect(calls).toContain('sns:Publish');
  }, 30_000);
  await runtime.topics.settled();

  // What reads or ends what the flows made.
  await Promise.all([
    send(runtime, 'GET', `/developer/api/sims/${northSim.iccid}/sms/${byEvents}/`, 200, { headers: nick }),
    send(runtime, 'GET', webhookPath, 200, { headers: ada }),
    send(runtime, 'GET', `${webhookPath}deliveries/`, 200, { headers: ada }),
    send(runtime, 'POST', `${webhookPath}rotate-secret/`, 200, { headers: ada }),
  ]);
  await send(runtime, 'DELETE', webhookPath, 200, { headers: ada });
};
