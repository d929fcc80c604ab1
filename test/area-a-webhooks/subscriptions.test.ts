import * as v from 'valibot';
import { fetchFromRuntime } from '../support/request';
import { describe, expect, it } from 'vitest';
import { WebhookSubscriptionList, WebhookSubscriptionWithSecret } from '../../shared/webhooks/schemas';
import { useTestRuntime } from '../support/runtime';
import { call } from './support/http';
import { callerPool, webhookSeed } from './support/seed';

/**
 * The webhook subscription routes (issue #15, point 1) over HTTP: Area A's chain (two factors,
 * rate-limit headers, JSON errors) and every error code of docs/webhooks.md, each with its whole
 * `{detail, code}`.
 */

const acme = callerPool('acme');
const globex = callerPool('globex');
// A public IP literal: accepted without name resolution (the tests have no network); never contacted.
const hook = 'https://1.1.1.1/sim-events';

const runtime = useTestRuntime({ seed: webhookSeed });

/** What a refusal of a non-public callback URL says locally after its reason: the runtime's inbox and CALLBACK_ALLOWED_HOSTS. */
const localHint = () =>
  ` Locally, the built-in HTTPS inbox ${runtime.inbox.url} is accepted, and CALLBACK_ALLOWED_HOSTS=host[:port],... (a variable of npm start) allows other hosts.`;

const create = (caller: ReturnType<typeof acme>, body: unknown) => call(runtime.baseUrl, caller, 'POST', '/developer/api/webhooks/', body);
const error = (status: number, code: string, detail: string) => ({ status, contentType: 'application/json', body: { detail, code } });
const answer = (response: Awaited<ReturnType<typeof call>>) => ({ status: response.status, contentType: response.contentType, body: response.body });

describe('webhook subscription routes', () => {
  it('creates a subscription to all five events by default, behind both factors, with the rate-limit headers', async () => {
    const created = await create(acme(), { url: hook });
    expect(answer(created)).toEqual({
      status: 201,
      contentType: 'application/json',
      body: {
        id: expect.stringMatching(/^wh_[0-9a-f]{24}$/),
        url: hook,
        events: ['line.activated', 'line.suspended', 'line.resumed', 'line.cancelled', 'usage.updated', 'identity.rotated', 'identity.verified', 'action.completed', 'action.failed'],
        description: null,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
        status: 'active',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?\+00:00$/),
      },
    });
    // The answer is exactly the documented schema (shared/webhooks/schemas.ts, for the OpenAPI document).
    expect(v.safeParse(WebhookSubscriptionWithSecret, created.body).success).toBe(true);
    expect(v.safeParse(WebhookSubscriptionWithSecret, { ...(created.body as object), extra: 1 }).success).toBe(false);
    expect(created.headers.get('x-ratelimit-limit-burst')).toBe('10');
    expect(created.headers.get('x-ratelimit-remaining-minute')).toMatch(/^\d+$/);
    const { id } = created.body as { id: string };
    expect((await call(runtime.baseUrl, acme(), 'DELETE', `/developer/api/webhooks/${id}/`)).status).toBe(200);

    const anonymous = await fetchFromRuntime(`${runtime.baseUrl}/developer/api/webhooks/`, { method: 'POST', body: JSON.stringify({ url: hook }) });
    expect([anonymous.status, await anonymous.json()]).toEqual([
      401,
      { detail: 'A personal bearer token is required: Authorization: Bearer bearer_<prefix>_<secret>.', code: 'bearer_token_required' },
    ]);
  });

  it('keeps the documented event order, drops duplicates and keeps the description', async () => {
    const created = await create(acme(), { url: hook, events: ['usage.updated', 'line.activated', 'usage.updated'], description: 'dashboard' });
    expect(created.body).toMatchObject({ events: ['line.activated', 'usage.updated'], description: 'dashboard' });
    await call(runtime.baseUrl, acme(), 'DELETE', `/developer/api/webhooks/${(created.body as { id: string }).id}/`);
  });

  it('refuses bodies that break the rules, each with its code', async () => {
    expect(answer(await create(acme(), '{"url":'))).toEqual(error(400, 'invalid_json', 'The request body is not valid JSON.'));
    expect(answer(await create(acme(), [hook]))).toEqual(
      error(400, 'invalid_request', 'The request body must be a JSON object: {"url": "https://...", "events": [...], "description": "..."}.'),
    );
    expect(answer(await create(acme(), {}))).toEqual(error(400, 'invalid_webhook_url', 'url must be a non-empty string.'));
    expect(answer(await create(acme(), { url: 'not a url' }))).toEqual(error(400, 'invalid_webhook_url', 'url is not a valid absolute URL.'));
    expect(answer(await create(acme(), { url: 'https://user:pw@1.1.1.1/' }))).toEqual(
      error(400, 'invalid_webhook_url', 'url must not contain a user name or password.'),
    );
    expect(answer(await create(acme(), { url: 'https://169.254.169.254/latest/meta-data/' }))).toEqual(
      error(400, 'invalid_webhook_url', `url must point to a publicly reachable host; 169.254.169.254 is link-local (cloud metadata).${localHint()}`),
    );
    expect(answer(await create(acme(), { url: hook, events: ['line.activated', 'line.deleted', 7] }))).toEqual(
      error(
        400,
        'invalid_webhook_events',
        'events contains unknown event types: "line.deleted", 7; known: line.activated, line.suspended, line.resumed, line.cancelled, usage.updated, identity.rotated, identity.verified, action.completed, action.failed, sms.received.',
      ),
    );
    expect(answer(await create(acme(), { url: hook, events: [] }))).toEqual(
      error(
        400,
        'invalid_webhook_events',
        'events must be a non-empty array of event types (line.activated, line.suspended, line.resumed, line.cancelled, usage.updated, identity.rotated, identity.verified, action.completed, action.failed, sms.received).',
      ),
    );
    expect(answer(await create(acme(), { url: hook, events: 'line.activated' }))).toEqual(
      error(
        400,
        'invalid_webhook_events',
        'events must be a non-empty array of event types (line.activated, line.suspended, line.resumed, line.cancelled, usage.updated, identity.rotated, identity.verified, action.completed, action.failed, sms.received).',
      ),
    );
    expect(answer(await create(acme(), { url: hook, description: 'x'.repeat(201) }))).toEqual(
      error(400, 'invalid_webhook_description', 'description must be well-formed text (no lone surrogates or control characters other than tab and line breaks) of at most 200 characters, or null.'),
    );
    expect(answer(await create(acme(), { url: hook, description: 'bad \u0000 text' }))).toEqual(
      error(
        400,
        'invalid_webhook_description',
        'description must be well-formed text (no lone surrogates or control characters other than tab and line breaks) of at most 200 characters, or null.',
      ),
    );
    expect(answer(await create(acme(), { url: hook, description: 12 }))).toEqual(
      error(400, 'invalid_webhook_description', 'description must be well-formed text (no lone surrogates or control characters other than tab and line breaks) of at most 200 characters, or null.'),
    );
    expect((await call(runtime.baseUrl, acme(), 'GET', '/developer/api/webhooks/')).body).toEqual({ count: 0, results: [] });
  });

  it('quotes at most 64 characters of an unknown event name and answers 400 to events nested 5,000 deep, never over 512 characters', async () => {
    const deep = `${'['.repeat(5_000)}"x"${']'.repeat(5_000)}`;
    expect(answer(await create(acme(), `{"url":"${hook}","events":${deep}}`))).toEqual(
      error(
        400,
        'invalid_webhook_events',
        'events contains unknown event types: an array; known: line.activated, line.suspended, line.resumed, line.cancelled, usage.updated, identity.rotated, identity.verified, action.completed, action.failed, sms.received.',
      ),
    );
    expect(answer(await create(acme(), `{"url":"${hook}","events":[${deep}]}`))).toEqual(
      error(
        400,
        'invalid_webhook_events',
        'events contains unknown event types: an array; known: line.activated, line.suspended, line.resumed, line.cancelled, usage.updated, identity.rotated, identity.verified, action.completed, action.failed, sms.received.',
      ),
    );
    const long = await create(acme(), { url: hook, events: ['e'.repeat(200_000)] });
    expect(answer(long)).toEqual(
      error(
        400,
        'invalid_webhook_events',
        `events contains unknown event types: "${'e'.repeat(64)}"… (200000 characters); known: line.activated, line.suspended, line.resumed, line.cancelled, usage.updated, identity.rotated, identity.verified, action.completed, action.failed, sms.received.`,
      ),
    );
    const many = await create(acme(), { url: hook, events: Array.from({ length: 3_000 }, (_, index) => `${'n'.repeat(100)}${index}`) });
    expect(answer(many)).toEqual(
      error(
        400,
        'invalid_webhook_events',
        `events contains 3000 unknown event types: ${['0', '1', '2'].map((index) => `"${'n'.repeat(64)}"… (${100 + index.length} characters)`).join(', ')} and 2997 more; known: line.activated, line.suspended, line.resumed, line.cancelled, usage.updated, identity.rotated, identity.verified, action.completed, action.failed, sms.received.`,
      ),
    );
    expect((many.body as { detail: string }).detail.length).toBeLessThanOrEqual(512);
  });

  it('allows at most 10 subscriptions per customer, even when 12 are created at once', async () => {
    const answers = await Promise.all(Array.from({ length: 12 }, (_, index) => create(globex(), { url: `${hook}/${index}` })));
    const statuses = answers.map((response) => response.status).sort();
    expect(statuses).toEqual([...Array(10).fill(201), 409, 409]);
    expect(answer(answers.find((response) => response.status === 409)!)).toEqual(
      error(409, 'webhook_limit_reached', 'This customer has 10 webhook subscriptions, the most allowed; delete one first.'),
    );
    const listed = await call(runtime.baseUrl, globex(), 'GET', '/developer/api/webhooks/');
    expect((listed.body as { count: number }).count).toBe(10);
    expect(v.safeParse(WebhookSubscriptionList, listed.body).success).toBe(true);
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');

    // Deleting one makes room for exactly one more.
    const first = (listed.body as { results: { id: string }[] }).results[0]!.id;
    expect((await call(runtime.baseUrl, globex(), 'DELETE', `/developer/api/webhooks/${first}/`)).status).toBe(200);
    expect((await create(globex(), { url: hook })).status).toBe(201);
    expect((await create(globex(), { url: hook })).status).toBe(409);
  });

  it("answers 404 webhook_not_found for another customer's subscription, a deleted one and an id that cannot be one", async () => {
    const theirs = (await create(acme(), { url: hook })).body as { id: string };
    const notFound = error(404, 'webhook_not_found', 'No webhook subscription with this id.');
    for (const [method, suffix] of [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', 'rotate-secret/'],
      ['GET', 'deliveries/'],
    ] as const) {
      expect(answer(await call(runtime.baseUrl, globex(), method, `/developer/api/webhooks/${theirs.id}/${suffix}`)), `${method} ${suffix}`).toEqual(notFound);
      expect(answer(await call(runtime.baseUrl, acme(), method, `/developer/api/webhooks/wh_nothex/${suffix}`))).toEqual(notFound);
    }
    expect((await call(runtime.baseUrl, acme(), 'GET', `/developer/api/webhooks/${theirs.id}/`)).status).toBe(200);
    expect((await call(runtime.baseUrl, acme(), 'DELETE', `/developer/api/webhooks/${theirs.id}/`)).status).toBe(200);
    expect(answer(await call(runtime.baseUrl, acme(), 'DELETE', `/developer/api/webhooks/${theirs.id}/`))).toEqual(notFound);
    expect(answer(await call(runtime.baseUrl, acme(), 'GET', `/developer/api/webhooks/${theirs.id}/deliveries/`))).toEqual(notFound);
  });

  it('answers a method the routes do not serve with 405 method_not_allowed', async () => {
    const response = await call(runtime.baseUrl, acme(), 'PUT', '/developer/api/webhooks/', { url: hook });
    expect(answer(response)).toEqual(error(405, 'method_not_allowed', 'Method PUT is not allowed on this path; use POST or GET.'));
    expect(response.headers.get('allow')).toBe('POST, GET');
    const item = await call(runtime.baseUrl, acme(), 'POST', '/developer/api/webhooks/wh_0123456789abcdef01234567/');
    expect(answer(item)).toEqual(error(405, 'method_not_allowed', 'Method POST is not allowed on this path; use GET or DELETE.'));
  });
});
