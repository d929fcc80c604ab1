import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { eventually, present } from '../support/eventually';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { WebhookDeliveryList } from '../../shared/webhooks/schemas';
import { issueApiKey, revokeApiKey } from '../../shared/auth/admin';
import { verifyWebhook } from '../../shared/callbacks/signing';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { key } from '../../shared/db/keys';
import { changeSim } from '../../shared/sims/change-sim';
import { sealSecret } from '../../shared/webhooks/secret-box';
import { testDynamoClient, testSqsClient } from '../support/resources';
import { useTestRuntime } from '../support/runtime';
import { captureLogLines } from '../support/log-lines';
import { type HttpsReceiver, type ReceivedRequest, selfSignedCertificate, startHttpsReceiver, type TestCertificate } from '../support/https-receiver';
import { call } from './support/http';
import { callerPool, sims, webhookSeed } from './support/seed';

/**
 * Issue #15 "Checked by", over HTTP against the local runtime: subscribe, change a SIM (as any
 * writer does: the table's stream makes the event), receive it signed; retries with one
 * webhook-id; scope only upwards; secrets only in create and rotate; non-public URLs refused at
 * subscription and at delivery; identity events; `failing` and the dead-letter queue.
 */

let certificate: TestCertificate;
let receiver: HttpsReceiver;
let db: DynamoDBDocumentClient;
const acme = callerPool('acme');
const north = callerPool('north');
const globex = callerPool('globex');
let clock = Date.parse('2026-11-25T12:00:00Z');

const runtime = useTestRuntime(
  async () => {
    certificate = selfSignedCertificate();
    receiver = await startHttpsReceiver(certificate, { lifecycleEvents: true });
    return {
      seed: webhookSeed,
      env: {
        // Exactly the receiver's origin (as the runtime exempts its inbox): 127.0.0.1 stays refused.
        CALLBACK_ALLOWED_HOSTS: `localhost:${receiver.port}`,
        NODE_EXTRA_CA_CERTS: certificate.certPath,
        WEBHOOK_RETRY_SCHEDULE_SECONDS: '1',
        WEBHOOK_FAILING_AFTER_EVENTS: '1',
      },
    };
  },
  {
    prepare: () => {
      db = DynamoDBDocumentClient.from(testDynamoClient());
    },
    stopAfter: async () => {
      await receiver?.stop();
      certificate?.remove();
    },
  },
);

/** What a refusal of a non-public callback URL says locally after its reason: the runtime's inbox and CALLBACK_ALLOWED_HOSTS. */
const localHint = () =>
  ` Locally, the built-in HTTPS inbox ${runtime.inbox.url} is accepted, and CALLBACK_ALLOWED_HOSTS=host[:port],... (a variable of npm start) allows other hosts.`;

const table = () => ({ db, tableName: runtime.tableName });
const change = (iccid: string, values: Parameters<typeof changeSim>[2]) => changeSim(table(), iccid, values, (clock += 60_000));
const json = (webhook: ReceivedRequest) => JSON.parse(webhook.body) as { id: string; type: string; timestamp: string; data: Record<string, unknown> };
const header = (webhook: ReceivedRequest, name: string) => String(webhook.headers[name]);
const verifies = (secret: string, webhook: ReceivedRequest) =>
  verifyWebhook(
    secret,
    { id: header(webhook, 'webhook-id'), timestamp: header(webhook, 'webhook-timestamp'), signature: header(webhook, 'webhook-signature') },
    webhook.body,
  );

interface Created {
  id: string;
  secret: string;
}

const subscribe = async (caller: ReturnType<typeof acme>, body: Record<string, unknown>): Promise<Created> => {
  const answer = await call(runtime.baseUrl, caller, 'POST', '/developer/api/webhooks/', body);
  expect(answer.status).toBe(201);
  return answer.body as Created;
};

const unsubscribe = async (caller: ReturnType<typeof acme>, id: string) => {
  expect((await call(runtime.baseUrl, caller, 'DELETE', `/developer/api/webhooks/${id}/`)).status).toBe(200);
};

const deliveries = async (caller: ReturnType<typeof acme>, id: string) =>
  (await call(runtime.baseUrl, caller, 'GET', `/developer/api/webhooks/${id}/deliveries/`)).body as {
    results: Record<string, unknown>[];
  };

const simObjectFor = (sim: typeof sims.acme, status: string, group: string | null, customerName: string, updatedAtMs: number) => ({
  id: sim.id,
  iccid: sim.iccid,
  msisdn: sim.msisdn,
  status,
  connection_status: 'active',
  customer_name: customerName,
  group,
  tariff_name: 'IoT 1GB',
  usage: { data_used_mb: '1.00', data_overage_mb: '0.00' },
  cost: { currency: 'GBP', base_cost: '£5.00', overage_cost: '£0.00', total_cost: '£5.00' },
  data_bundle: null,
  updated_at: new Date(updatedAtMs).toISOString().replace('.000Z', '+00:00'),
});

describe('lifecycle webhooks', () => {
  it('delivers a signed line.suspended, with the SIM as A2 shows it to the subscriber, that verifies with the subscription secret', async () => {
    const subscription = await subscribe(acme(), { url: `${receiver.url}/ok/suspended`, events: ['line.suspended'] });
    const written = await change(sims.acme.iccid, { status: 'suspended' });
    const webhook = await eventually(() => present(receiver.requestsTo('/ok/suspended')[0]));

    const event = json(webhook);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: 'line.suspended',
      timestamp: expect.stringMatching(/^2\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?\+00:00$/),
      data: simObjectFor(sims.acme, 'suspended', null, 'Acme Ltd', written.updated_at_ms),
    });
    expect(header(webhook, 'webhook-id')).toBe(event.id);
    expect(header(webhook, 'content-type')).toBe('application/json');
    expect(header(webhook, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Math.abs(Number(header(webhook, 'webhook-timestamp')) - Date.now() / 1000)).toBeLessThan(60);
    expect(verifies(subscription.secret, webhook)).toBe(true);
    expect(verifies(`whsec_${Buffer.alloc(32).toString('base64')}`, webhook)).toBe(false);

    const attempts = await eventually(async () => {
      const found = await deliveries(acme(), subscription.id);
      return present(found.results.length > 0 ? found : undefined);
    });
    expect(attempts).toEqual({
      results: [
        {
          event_id: event.id,
          type: 'line.suspended',
          attempt: 1,
          outcome: 'delivered',
          http_status: 204,
          error: null,
          attempted_at: expect.stringMatching(/\+00:00$/),
          next_attempt_at: null,
        },
      ],
    });
    await change(sims.acme.iccid, { status: 'active' });
    await unsubscribe(acme(), subscription.id);
  });

  it('retries a receiver that fails twice, then succeeds: three attempts with one webhook-id, recorded newest first', async () => {
    const subscription = await subscribe(acme(), { url: `${receiver.url}/flaky/2/usage`, events: ['usage.updated'] });
    await change(sims.acme.iccid, { data_used_mb: '20.25' });
    await eventually(() => expect(receiver.requestsTo('/flaky/2/usage').length >= 3).toBe(true));
    const got = receiver.requestsTo('/flaky/2/usage');
    expect(got).toHaveLength(3);
    expect(new Set(got.map((webhook) => header(webhook, 'webhook-id'))).size).toBe(1);
    expect(new Set(got.map((webhook) => webhook.body)).size).toBe(1);
    expect(got.every((webhook) => verifies(subscription.secret, webhook))).toBe(true);
    const event = json(got[0]!);
    expect(event).toEqual({
      id: header(got[0]!, 'webhook-id'),
      type: 'usage.updated',
      timestamp: expect.any(String),
      data: {
        iccid: sims.acme.iccid,
        usage: { data_used_mb: '20.25', data_overage_mb: '0.00' },
        cost: { currency: 'GBP', base_cost: '£5.00', overage_cost: '£0.00', total_cost: '£5.00' },
      },
    });
    const attempts = await eventually(async () => {
      const found = await deliveries(acme(), subscription.id);
      return present(found.results.length === 3 ? found : undefined);
    });
    expect(attempts.results.map((attempt) => [attempt.event_id, attempt.attempt, attempt.outcome, attempt.http_status, attempt.error])).toEqual([
      [event.id, 3, 'delivered', 204, null],
      [event.id, 2, 'failed', 500, 'http_error'],
      [event.id, 1, 'failed', 500, 'http_error'],
    ]);
    expect(attempts.results[0]!.next_attempt_at).toBeNull();
    expect(v.safeParse(WebhookDeliveryList, attempts).success).toBe(true);
    expect(attempts.results[1]!.next_attempt_at).toEqual(expect.stringMatching(/\+00:00$/));
    await unsubscribe(acme(), subscription.id);
  });

  it("never shows a sub-customer's subscription its parent's SIMs; the parent sees the sub-customer's with its group", async () => {
    const child = await subscribe(north(), { url: `${receiver.url}/ok/north`, events: ['line.suspended'] });
    const parent = await subscribe(acme(), { url: `${receiver.url}/ok/acme-parent`, events: ['line.suspended'] });
    await change(sims.acme.iccid, { status: 'suspended' });
    const ownChange = await change(sims.north.iccid, { status: 'suspended' });
    await change(sims.globex.iccid, { status: 'suspended' });
    await eventually(() => expect(receiver.requestsTo('/ok/acme-parent').length >= 2 && receiver.requestsTo('/ok/north').length >= 1).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 1500));

    expect(receiver.requestsTo('/ok/north').map((webhook) => json(webhook).data)).toEqual([
      simObjectFor(sims.north, 'suspended', null, 'Acme North', ownChange.updated_at_ms),
    ]);
    expect(verifies(child.secret, receiver.requestsTo('/ok/north')[0]!)).toBe(true);
    const parentSaw = receiver.requestsTo('/ok/acme-parent').map((webhook) => json(webhook).data as { iccid: string; group: string | null });
    expect(parentSaw.map((data) => [data.iccid, data.group]).sort()).toEqual([
      [sims.acme.iccid, null],
      [sims.north.iccid, 'Acme North'],
    ]);
    for (const sim of [sims.acme, sims.north, sims.globex]) await change(sim.iccid, { status: 'active' });
    await unsubscribe(north(), child.id);
    await unsubscribe(acme(), parent.id);
  });

  it('signs with the old and the new secret for 24 hours after a rotation; the secret is shown only by create and rotate', async () => {
    const created = await call(runtime.baseUrl, acme(), 'POST', '/developer/api/webhooks/', {
      url: `${receiver.url}/ok/rotation`,
      events: ['line.suspended'],
      description: 'rotation test',
    });
    const { id, secret: first } = created.body as Created;
    expect(created).toMatchObject({ status: 201, contentType: 'application/json' });
    expect(created.body).toEqual({
      id: expect.stringMatching(/^wh_[0-9a-f]{24}$/),
      url: `${receiver.url}/ok/rotation`,
      events: ['line.suspended'],
      description: 'rotation test',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      status: 'active',
      created_at: expect.stringMatching(/\+00:00$/),
    });
    const view = { ...(created.body as Record<string, unknown>) };
    delete view.secret;

    const listed = await call(runtime.baseUrl, acme(), 'GET', '/developer/api/webhooks/');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ count: 1, results: [view] });
    expect(await call(runtime.baseUrl, acme(), 'GET', `/developer/api/webhooks/${id}/`)).toMatchObject({ status: 200, body: view });

    const rotated = await call(runtime.baseUrl, acme(), 'POST', `/developer/api/webhooks/${id}/rotate-secret/`);
    expect(rotated.status).toBe(200);
    const second = (rotated.body as Created).secret;
    expect(rotated.body).toEqual({ ...view, secret: expect.stringMatching(/^whsec_/) });
    expect(second).not.toBe(first);
    expect(await call(runtime.baseUrl, acme(), 'GET', `/developer/api/webhooks/${id}/`)).toMatchObject({ status: 200, body: view });

    await change(sims.acme.iccid, { status: 'suspended' });
    const webhook = await eventually(() => present(receiver.requestsTo('/ok/rotation')[0]));
    expect(header(webhook, 'webhook-signature').split(' ')).toHaveLength(2);
    expect([verifies(first, webhook), verifies(second, webhook)]).toEqual([true, true]);
    await change(sims.acme.iccid, { status: 'active' });

    const deleted = await call(runtime.baseUrl, acme(), 'DELETE', `/developer/api/webhooks/${id}/`);
    expect(deleted).toMatchObject({ status: 200, body: view });
    const stored = JSON.stringify(await db.send(new (await import('@aws-sdk/lib-dynamodb')).ScanCommand({ TableName: runtime.tableName })));
    expect([stored.includes(first.slice(6)), stored.includes(second.slice(6))]).toEqual([false, false]);
  });

  it('keeps the 3 most recently retired secrets signing beside the current one when secrets are rotated within 24 hours', async () => {
    const { id, secret: first } = await subscribe(acme(), { url: `${receiver.url}/ok/rotations`, events: ['line.suspended'] });
    const secrets = [first];
    const rotate = async (times: number) => {
      for (let time = 0; time < times; time += 1) {
        const rotated = await call(runtime.baseUrl, acme(), 'POST', `/developer/api/webhooks/${id}/rotate-secret/`);
        expect(rotated.status).toBe(200);
        secrets.push((rotated.body as Created).secret);
      }
    };
    const signedWith = async (nth: number) => {
      await change(sims.acme.iccid, { status: 'suspended' });
      const webhook = await eventually(() => present(receiver.requestsTo('/ok/rotations')[nth]));
      await change(sims.acme.iccid, { status: 'active' });
      return [header(webhook, 'webhook-signature').split(' ').length, ...secrets.map((secret) => verifies(secret, webhook))];
    };
    // Two rotations: the first secret's 24 hours are not cut short by the second.
    await rotate(2);
    expect(await signedWith(0)).toEqual([3, true, true, true]);
    // Four: the current one and the three most recently retired; the first is the fourth.
    await rotate(2);
    expect(await signedWith(1)).toEqual([4, false, true, true, true, true]);
    await unsubscribe(acme(), id);
  });

  it('refuses non-public URLs at subscription', async () => {
    const refused = async (url: string) => (await call(runtime.baseUrl, acme(), 'POST', '/developer/api/webhooks/', { url })).body;
    expect(await refused('https://127.0.0.1/hook')).toEqual({
      detail: `url must point to a publicly reachable host; 127.0.0.1 is loopback.${localHint()}`,
      code: 'invalid_webhook_url',
    });
    expect(await refused('https://10.1.2.3/hook')).toEqual({
      detail: `url must point to a publicly reachable host; 10.1.2.3 is private.${localHint()}`,
      code: 'invalid_webhook_url',
    });
    expect(await refused('https://[::1]/hook')).toEqual({
      detail: `url must point to a publicly reachable host; [::1] is loopback.${localHint()}`,
      code: 'invalid_webhook_url',
    });
    expect(await refused('https://localhost/hook')).toEqual({
      detail: `url must point to a publicly reachable host; localhost resolves to a loopback address.${localHint()}`,
      code: 'invalid_webhook_url',
    });
    expect(await refused('http://example.com/hook')).toEqual({ detail: 'url must use HTTPS.', code: 'invalid_webhook_url' });
    expect((await call(runtime.baseUrl, acme(), 'GET', '/developer/api/webhooks/')).body).toEqual({ count: 0, results: [] });
  });

  it('refuses a non-public address again at delivery (a subscription whose host no longer passes) and records why', async () => {
    const id = 'wh_00000000000000000000abcd';
    await db.send(
      new PutCommand({
        TableName: runtime.tableName,
        Item: {
          ...key.webhookSubscription('acme', id),
          type: 'webhook_subscription',
          id,
          customer_id: 'acme',
          url: `https://127.0.0.1:${receiver.port}/ok/private`,
          events: ['line.suspended'],
          description: null,
          status: 'active',
          created_at: '2026-11-25T12:00:00+00:00',
          secret_sealed: sealSecret(runtime.env.WEBHOOK_SECRETS_KEY!, id, `whsec_${Buffer.alloc(32, 7).toString('base64')}`),
          failed_events_in_a_row: 0,
        },
      }),
    );
    await change(sims.acme.iccid, { status: 'suspended' });
    const attempts = await eventually(async () => {
      const found = await deliveries(acme(), id);
      return present(found.results.length > 0 ? found : undefined);
    });
    expect(attempts.results[0]).toEqual({
      event_id: expect.stringMatching(/^evt_/),
      type: 'line.suspended',
      attempt: 1,
      outcome: 'failed',
      http_status: null,
      error: 'refused_url: url must point to a publicly reachable host; 127.0.0.1 is loopback.',
      attempted_at: expect.any(String),
      next_attempt_at: expect.any(String),
    });
    expect(receiver.requestsTo('/ok/private')).toEqual([]);
    // Deleted before its retries run out: the jobs still queued are dropped, none reaches the DLQ.
    await db.send(new (await import('@aws-sdk/lib-dynamodb')).DeleteCommand({ TableName: runtime.tableName, Key: key.webhookSubscription('acme', id) }));

    // A host NAME that passes the URL rules but resolves to loopback (as after DNS rebinding):
    // the public-only lookup refuses the connection itself.
    const named = 'wh_00000000000000000000abce';
    await db.send(
      new PutCommand({
        TableName: runtime.tableName,
        Item: {
          ...key.webhookSubscription('acme', named),
          type: 'webhook_subscription',
          id: named,
          customer_id: 'acme',
          // Another port than the receiver's allowed origin: not exempt.
          url: `https://localhost:${receiver.port + 1}/ok/rebound`,
          events: ['line.activated'],
          description: null,
          status: 'active',
          created_at: '2026-11-25T12:00:00+00:00',
          secret_sealed: sealSecret(runtime.env.WEBHOOK_SECRETS_KEY!, named, `whsec_${Buffer.alloc(32, 8).toString('base64')}`),
          failed_events_in_a_row: 0,
        },
      }),
    );
    await change(sims.acme.iccid, { status: 'active' });
    const rebound = await eventually(async () => present((await deliveries(acme(), named)).results[0]));
    expect(rebound).toMatchObject({
      type: 'line.activated',
      attempt: 1,
      outcome: 'failed',
      http_status: null,
      error: expect.stringMatching(/^refused_address: address (127\.0\.0\.1|::1) is not public \(loopback\)$/),
    });
    await db.send(new (await import('@aws-sdk/lib-dynamodb')).DeleteCommand({ TableName: runtime.tableName, Key: key.webhookSubscription('acme', named) }));
  });

  it('sends identity.rotated when a key is issued and revoked and identity.verified on its first successful use, never secret material', async () => {
    const subscription = await subscribe(acme(), { url: `${receiver.url}/ok/identity`, events: ['identity.rotated', 'identity.verified'] });
    const issued = await issueApiKey(table(), 'acme');
    await eventually(() => present(receiver.requestsTo('/ok/identity')[0]));
    const user = acme();
    expect((await call(runtime.baseUrl, { token: user.token, apiKey: issued.value }, 'GET', '/developer/api/webhooks/')).status).toBe(200);
    expect((await call(runtime.baseUrl, { token: acme().token, apiKey: issued.value }, 'GET', '/developer/api/webhooks/')).status).toBe(200);
    await revokeApiKey(table(), issued.prefix);
    await eventually(() => expect(receiver.requestsTo('/ok/identity').length >= 3).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // Each event is its own delivery job, retried on its own: they may arrive in any order (docs/webhooks.md).
    const byAction = (event: unknown[]) => ['issued', 'verified', 'revoked'].indexOf((event[1] as { action: string }).action);
    const got = receiver
      .requestsTo('/ok/identity')
      .map((webhook) => [json(webhook).type, json(webhook).data])
      .sort((left, right) => byAction(left) - byAction(right));
    expect(got).toEqual([
      ['identity.rotated', { kind: 'api_key', prefix: issued.prefix, user: null, action: 'issued' }],
      ['identity.verified', { kind: 'api_key', prefix: issued.prefix, user: null, action: 'verified' }],
      ['identity.rotated', { kind: 'api_key', prefix: issued.prefix, user: null, action: 'revoked' }],
    ]);
    expect(receiver.requestsTo('/ok/identity').some((webhook) => webhook.body.includes(issued.value.split('_')[2]!))).toBe(false);
    await unsubscribe(acme(), subscription.id);
  });

  it('after the last attempt puts the job in the dead-letter queue and marks the subscription failing; deliveries go on', async () => {
    const subscription = await subscribe(globex(), { url: `${receiver.url}/down/globex`, events: ['line.activated'] });
    const capture = captureLogLines();
    try {
      await change(sims.globex.iccid, { status: 'suspended' });
      await change(sims.globex.iccid, { status: 'active' });
      await eventually(() => expect(receiver.requestsTo('/down/globex').length >= 7).toBe(true), 40_000);
      await eventually(() => expect(capture.lines().some((line) => line.message === 'queue message failed')).toBe(true));
    } finally {
      capture.restore();
    }
    // Scheduled retries are warnings with their attempt number; only the spent attempts are errors.
    const deliveryLines = capture.lines().filter((line) => line.subscription_id === subscription.id);
    const messageIds = new Set(deliveryLines.map((line) => line.sqs_message_id));
    const consumerLines = capture.lines().filter((line) => messageIds.has(line.sqs_message_id) && String(line.message).startsWith('queue message'));
    expect(deliveryLines.map((line) => [line.level, line.message, line.attempt])).toEqual([
      ...[1, 2, 3, 4, 5, 6].map((attempt) => ['WARN', 'webhook delivery failed; retry scheduled', attempt]),
      ['ERROR', 'webhook delivery failed; attempts spent', 7],
    ]);
    expect(deliveryLines[0]).toMatchObject({ http_status: 503, error: 'http_error', next_attempt_in_seconds: expect.any(Number) });
    expect(consumerLines.map((line) => [line.level, line.message, line.receive_count])).toEqual([
      ...[1, 2, 3, 4, 5, 6].map((attempt) => ['WARN', 'queue message failed; retry scheduled', attempt]),
      ['ERROR', 'queue message failed', 7],
    ]);
    const sqs = testSqsClient();
    const depth = async () =>
      Number(
        (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: runtime.queues['webhook-deliveries'].deadLetterUrl, AttributeNames: ['ApproximateNumberOfMessages'] })))
          .Attributes?.ApproximateNumberOfMessages ?? 0,
      );
    await eventually(async () => expect((await depth()) === 1).toBe(true));
    sqs.destroy();
    expect(receiver.requestsTo('/down/globex')).toHaveLength(7);
    const shown = await call(runtime.baseUrl, globex(), 'GET', `/developer/api/webhooks/${subscription.id}/`);
    expect(shown.body).toMatchObject({ id: subscription.id, status: 'failing' });
    const attempts = await deliveries(globex(), subscription.id);
    expect(attempts.results.map((attempt) => [attempt.attempt, attempt.outcome, attempt.http_status, attempt.next_attempt_at === null])).toEqual([
      [7, 'failed', 503, true],
      [6, 'failed', 503, false],
      [5, 'failed', 503, false],
      [4, 'failed', 503, false],
      [3, 'failed', 503, false],
      [2, 'failed', 503, false],
      [1, 'failed', 503, false],
    ]);
    await unsubscribe(globex(), subscription.id);
  }, 60_000);
});
