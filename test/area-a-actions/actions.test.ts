import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { lifecycleUrlOf } from '../../local/console/sections/webhooks';
import { key } from '../../shared/db/keys';
import type { SimActionItem } from '../../shared/db/items';
import { expireActions } from '../../shared/sim-actions/expire';
import { eventually } from '../support/eventually';
import { testDynamoClient } from '../support/resources';
import { useTestRuntime } from '../support/runtime';
import { firstRequestHeaders, json, rateLimitHeaders } from '../area-a/support/http';
import { call, type Answer } from './support/http';
import { actionsSeed, iccidOf, keyOf, tokenOf, type SeedUser } from './support/seed';
import { buildApiGatewayEvent } from '../../local/api-gateway-event';
import { lambdaContext } from '../../local/lambda-context';
import { operatorSettingsFromEnv } from '../../local/operator-emulator';
import { functionConfigs } from '../../shared/config/function-config';
import { readConfiguration } from '../../shared/config/variables';
import { requestSimActionDeps, requestSimActionRoute } from '../../shared/routes/sim-actions';

/**
 * Issue #33 over HTTP against the local runtime (one runtime for the file; the operator emulator
 * answers after 50 ms): API key scopes on the existing routes and the SIM action routes; each
 * transition through the operator emulator and the operator feed with the events it makes; each
 * refusal with its whole answer; idempotency; two actions at once on one SIM; tenant isolation;
 * the emulator's outcomes (completed, rejected, silent) and an action superseded or timed out.
 * Every user makes at most a handful of requests (10 per 10 s are allowed).
 */

const developers = Array.from({ length: 24 }, (_, index) => ({ id: `d${index + 1}` }));
const users: SeedUser[] = [
  ...['s1', 's2', 's3', 's4', 'hook'].map((id) => ({ id })),
  ...developers,
  { id: 'viewer', roles: ['viewer'] },
  { id: 'admin1', roles: ['developer', 'admin'] },
  { id: 'admin2', roles: ['developer', 'admin'] },
  { id: 'northdev', customer: 'north' },
  { id: 'otherdev', customer: 'other', roles: ['developer', 'admin'] },
];

const db = DynamoDBDocumentClient.from(testDynamoClient());
const runtime = useTestRuntime(() => ({ seed: actionsSeed(users), env: { OPERATOR_SIMULATOR_DELAY_MS: '50' } }), {
  // Root's lifecycle events to the webhook inbox (every default type, the new ones included).
  prepare: async (started) => {
    const subscribed = await call(started.baseUrl, { user: 'hook', key: 'manage' }, 'POST', '/developer/api/webhooks/', { url: lifecycleUrlOf(started.inbox.url) });
    expect(subscribed.status).toBe(201);
  },
  stopAfter: () => db.destroy(),
});

const get = (user: string, key: string, path: string) => call(runtime.baseUrl, { user, key }, 'GET', path);
const post = (user: string, key: string, path: string, body: unknown, headers: Record<string, string> = {}) => call(runtime.baseUrl, { user, key }, 'POST', path, body, headers);
const act = (user: string, sim: number | string, body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) =>
  post(user, options.key ?? 'manage', `/developer/api/sims/${sim}/actions/`, body, options.headers);
const whole = (answer: Answer) => answer;
const refusal = (status: number, code: string, detail: string, headers: Record<string, string> = { ...json, ...firstRequestHeaders }) => ({ status, headers, body: { detail, code } });
const insufficient = (scope: string) => refusal(403, 'insufficient_scope', `The API key does not have the ${scope} scope this operation needs.`, json);

const isoNow = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?\+00:00$/;
/** The action a POST answers, pending. */
const pending = (sim: number, action: string, reason: string | null = null) => ({
  action_id: expect.stringMatching(/^act_[0-9a-f]{28}$/),
  sim,
  iccid: iccidOf(sim),
  action,
  status: 'pending',
  reason,
  requested_at: expect.stringMatching(isoNow),
  completed_at: null,
  failure: null,
});

/** The action's item, read strongly consistent (polling the API would spend the rate limit). */
const actionItem = async (sim: number, actionId: string) =>
  (await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.simAction(sim, actionId), ConsistentRead: true }))).Item as SimActionItem | undefined;
/** The action once it is no longer pending. */
const ended = (sim: number, actionId: string) =>
  eventually(async () => {
    const item = await actionItem(sim, actionId);
    expect(item?.status).not.toBe('pending');
    return item!;
  }, 15_000);
const simStatus = async (sim: number) => (await db.send(new GetCommand({ TableName: runtime.tableName, Key: key.sim(sim), ConsistentRead: true }))).Item?.status;

/** The lifecycle events the inbox received about a SIM (by ICCID), as [type, data]. */
const eventsOf = (sim: number) =>
  runtime.inbox
    .deliveries()
    .filter((delivery) => delivery.path === '/lifecycle')
    .map((delivery) => JSON.parse(delivery.body) as { type: string; data: Record<string, unknown> })
    .filter((event) => event.data.iccid === iccidOf(sim))
    .map((event) => [event.type, event.data] as const);
/** Waits until the SIM's events include every type of `types`, and returns them all. */
const awaitEvents = (sim: number, types: string[]) =>
  eventually(() => {
    const events = eventsOf(sim);
    expect(events.map(([type]) => type)).toEqual(expect.arrayContaining(types));
    return events;
  }, 15_000);

describe('API key scopes on the existing routes', () => {
  it('lets a sims:read key read SIMs and refuses it an SMS with 403 insufficient_scope, counting nothing', async () => {
    expect(whole(await post('s1', 'readonly', `/developer/api/sims/${iccidOf(105)}/sms/`, { message: 'hi' }))).toEqual(insufficient('sms:send'));
    // Again (the container now knows the caller): still refused, still not counted.
    expect(whole(await post('s1', 'readonly', `/developer/api/sims/${iccidOf(105)}/sms/`, { message: 'hi' }))).toEqual(insufficient('sms:send'));
    const read = await get('s1', 'readonly', '/developer/api/sims/105/');
    expect([read.status, read.headers, read.body.id]).toEqual([200, { ...json, ...firstRequestHeaders }, 105]);
  });

  it('lets an sms:send key send and read its message, and refuses it A1 and A2', async () => {
    expect(whole(await get('s2', 'sendonly', '/developer/api/sims/105/'))).toEqual(insufficient('sims:read'));
    expect(whole(await get('s2', 'sendonly', '/developer/api/sims/'))).toEqual(insufficient('sims:read'));
    const sent = await post('s2', 'sendonly', `/developer/api/sims/${iccidOf(105)}/sms/`, { message: 'hi', message_id: 'scope-1' });
    expect([sent.status, sent.headers]).toEqual([202, { ...json, ...firstRequestHeaders }]);
    expect((await get('s2', 'sendonly', `/developer/api/sims/${iccidOf(105)}/sms/scope-1/`)).status).toBe(200);
  });

  it('refuses a key with no scopes everything scoped, and keeps what a key stored without scopes could do', async () => {
    expect(whole(await get('s3', 'none', '/developer/api/sims/105/'))).toEqual(insufficient('sims:read'));
    expect(whole(await post('s3', 'none', `/developer/api/sims/${iccidOf(105)}/sms/`, { message: 'hi' }))).toEqual(insufficient('sms:send'));
    const read = await get('s3', 'legacy', '/developer/api/sims/105/');
    expect([read.status, read.headers]).toEqual([200, { ...json, ...firstRequestHeaders }]);
    const sent = await post('s3', 'legacy', `/developer/api/sims/${iccidOf(105)}/sms/`, { message: 'hi' });
    expect([sent.status, sent.headers]).toEqual([202, { ...json, ...rateLimitHeaders({ burst: 8, minute: 58, hour: 1498 }) }]);
  });

  it('still needs the developer role: a viewer with a sims:manage key is 403 developer_access_required', async () => {
    expect(whole(await get('viewer', 'manage', '/developer/api/sims/105/'))).toEqual(refusal(403, 'developer_access_required', 'The user does not have the developer role.', json));
    expect(whole(await act('viewer', 105, { action: 'suspend' }))).toEqual(refusal(403, 'developer_access_required', 'The user does not have the developer role.', json));
  });
});

describe('the SIM action routes need sims:manage', () => {
  it('refuses every other key 403 insufficient_scope, a key stored without scopes too', async () => {
    for (const keyLabel of ['readonly', 'legacy']) {
      expect(whole(await act('s4', 116, { action: 'suspend' }, { key: keyLabel }))).toEqual(insufficient('sims:manage'));
      expect(whole(await get('s4', keyLabel, '/developer/api/sims/116/actions/'))).toEqual(insufficient('sims:manage'));
    }
    expect(whole(await get('s4', 'sendonly', '/developer/api/sims/116/actions/act_0000000000000000000000000000/'))).toEqual(insufficient('sims:manage'));
  });
});

describe.concurrent('POST /developer/api/sims/{sim}/actions/: each transition through the operator', () => {
  const transitions: [string, number, string, { action: string; confirm?: string }, string, string[]][] = [
    ['activates a stock SIM', 101, 'd1', { action: 'activate' }, 'active', ['line.activated']],
    ['activates a dispatched SIM (named by its ICCID)', 102, 'd2', { action: 'activate' }, 'active', ['line.activated']],
    ['activates a trial SIM of a sub-customer', 103, 'd3', { action: 'activate' }, 'active', ['line.activated']],
    ['activates an inactive SIM', 104, 'd4', { action: 'activate' }, 'active', ['line.activated']],
    ['suspends an active SIM', 105, 'd5', { action: 'suspend' }, 'suspended', ['line.suspended']],
    ['suspends a trial SIM', 106, 'd6', { action: 'suspend' }, 'suspended', ['line.suspended']],
    ['resumes a suspended SIM (line.resumed beside line.activated)', 107, 'd7', { action: 'resume' }, 'active', ['line.activated', 'line.resumed']],
    ['terminates an active SIM for an admin who confirms with the ICCID', 108, 'admin1', { action: 'terminate', confirm: iccidOf(108) }, 'cancelled', ['line.cancelled']],
  ];

  it.each(transitions)('%s: 202 pending, then completed by the feed record the operator sends, with its events', async (_name, sim, user, body, status, lineEvents) => {
    const path = sim === 102 ? iccidOf(102) : sim;
    const asked = await act(user, path, { ...body, reason: `ticket ${sim}` });
    expect(whole(asked)).toEqual({ status: 202, headers: { ...json, ...firstRequestHeaders }, body: pending(sim, body.action, `ticket ${sim}`) });
    const actionId = asked.body.action_id as string;
    const done = await ended(sim, actionId);
    expect([done.status, await simStatus(sim)]).toEqual(['completed', status]);
    const read = await get(user, 'manage', `/developer/api/sims/${sim}/actions/${actionId}/`);
    expect(whole(read)).toEqual({
      status: 200,
      headers: { ...json, ...rateLimitHeaders({ burst: 8, minute: 58, hour: 1498 }) },
      body: { ...asked.body, status: 'completed', completed_at: expect.stringMatching(isoNow) },
    });
    const events = await awaitEvents(sim, [...lineEvents, 'action.completed']);
    expect(events.map(([type]) => type).sort()).toEqual([...lineEvents, 'action.completed'].sort());
    expect(events.find(([type]) => type === 'action.completed')![1]).toEqual(read.body);
    for (const lineEvent of lineEvents) expect(events.find(([type]) => type === lineEvent)![1]).toMatchObject({ id: sim, status });
    // The operator received the request (its emulator lists it, newest first).
    const requests = (await (await fetch(`${runtime.baseUrl}/_local/operator/requests`)).json()) as Record<string, unknown>[];
    expect(requests.find((request) => request.action_id === actionId)).toEqual({ action_id: actionId, iccid: iccidOf(sim), action: body.action, received_at: expect.stringMatching(/Z$/) });
  });
});

describe('POST /developer/api/sims/{sim}/actions/: refusals, each with its whole answer', () => {
  it('400 invalid_json and invalid_action: a body that is not JSON, or not the shape', async () => {
    expect(whole(await act('d8', 116, '{"action":'))).toEqual(refusal(400, 'invalid_json', 'The request body is not valid JSON.'));
    const shape = 'The body must be {"action": "activate" | "suspend" | "resume" | "terminate", "reason": "..." (optional, at most 200 characters), "confirm": "<ICCID>" (terminate only)}.';
    const headers = (made: number) => ({ ...json, ...rateLimitHeaders({ burst: 9 - made, minute: 59 - made, hour: 1499 - made }) });
    expect(whole(await act('d8', 116, { action: 'reboot' }))).toEqual(refusal(400, 'invalid_action', 'action must be one of activate, suspend, resume, terminate.', headers(1)));
    expect(whole(await act('d8', 116, { action: 'constructor' }))).toEqual(refusal(400, 'invalid_action', 'action must be one of activate, suspend, resume, terminate.', headers(2)));
    expect(whole(await act('d8', 116, ['suspend']))).toEqual(refusal(400, 'invalid_action', shape, headers(3)));
    expect(whole(await act('d8', 116, { action: 'suspend', reason: 'x'.repeat(201) }))).toEqual(
      refusal(400, 'invalid_action', 'reason must be well-formed text (no lone surrogates or control characters other than tab and line breaks) of at most 200 characters, or null.', headers(4)),
    );
    expect(whole(await act('d8', 116, { action: 'suspend', when: 'now' }))).toEqual(refusal(400, 'invalid_action', `unknown field "when". ${shape}`, headers(5)));
    expect(whole(await act('d8', 116, { action: 'terminate', confirm: 8944 }))).toEqual(refusal(400, 'invalid_action', 'confirm must be a string: the ICCID of the SIM to terminate.', headers(6)));
    // A reason of exactly 200 characters is one.
    expect((await act('d8', 116, { action: 'suspend', reason: 'é'.repeat(200) })).status).toBe(202);
  });

  it('400 invalid_request for a malformed Idempotency-Key; 404 not_found for a SIM that is not one, not there or another group\'s', async () => {
    expect(whole(await act('d9', 117, { action: 'suspend' }, { headers: { 'Idempotency-Key': 'two words' } }))).toEqual(
      refusal(400, 'invalid_request', 'The Idempotency-Key header must be 1 to 255 visible ASCII characters.'),
    );
    const notFound = (made: number) => refusal(404, 'not_found', 'Not found.', { ...json, ...rateLimitHeaders({ burst: 9 - made, minute: 59 - made, hour: 1499 - made }) });
    expect(whole(await act('d9', 901, { action: 'suspend' }))).toEqual(notFound(1));
    expect(whole(await act('d9', iccidOf(901), { action: 'suspend' }))).toEqual(notFound(2));
    expect(whole(await act('d9', 999999, { action: 'suspend' }))).toEqual(notFound(3));
    expect(whole(await act('d9', 'abc', { action: 'suspend' }))).toEqual(notFound(4));
    expect(whole(await act('d9', '8'.repeat(21), { action: 'suspend' }))).toEqual(notFound(5));
  });

  it('terminate: 403 admin_role_required without the admin role, 400 confirmation_required without the ICCID or with another', async () => {
    expect(whole(await act('d10', 117, { action: 'terminate', confirm: iccidOf(117) }))).toEqual(refusal(403, 'admin_role_required', 'Terminating a SIM needs a user with the admin role.'));
    expect(whole(await act('admin2', 117, { action: 'terminate' }))).toEqual(refusal(400, 'confirmation_required', 'terminate needs "confirm": "<the SIM\'s ICCID>" in the body.'));
    expect(whole(await act('admin2', 117, { action: 'terminate', confirm: iccidOf(118) }))).toEqual(
      refusal(400, 'confirmation_required', 'confirm is not the SIM\'s ICCID: terminate needs "confirm": "<the SIM\'s ICCID>" exactly.', { ...json, ...rateLimitHeaders({ burst: 8, minute: 58, hour: 1498 }) }),
    );
  });

  it('409 invalid_transition naming the SIM\'s status, for each action from a status it is not allowed from', async () => {
    const cases: [string, number, Record<string, string>, string][] = [
      ['d11', 114, { action: 'suspend' }, 'SIM 114 is suspended: suspend is allowed from active, trial.'],
      ['d11', 114, { action: 'activate' }, 'SIM 114 is suspended: activate is allowed from stock, dispatched, trial, inactive.'],
      ['d11', 118, { action: 'resume' }, 'SIM 118 is active: resume is allowed from suspended.'],
      ['d11', 118, { action: 'activate' }, 'SIM 118 is active: activate is allowed from stock, dispatched, trial, inactive.'],
      ['admin2', 109, { action: 'terminate', confirm: iccidOf(109) }, 'SIM 109 is cancelled: terminate is allowed from any status but cancelled.'],
    ];
    for (const [user, sim, body, detail] of cases) {
      const answer = await act(user, sim, body);
      expect([answer.status, answer.body]).toEqual([409, { detail, code: 'invalid_transition' }]);
    }
  });
});

describe('idempotency and one pending action per SIM', () => {
  it('replays the first 202 for the same Idempotency-Key and body, refuses the key with another body, and 409 action_pending without a key', async () => {
    const first = await act('d12', 119, { action: 'suspend', reason: '[silent]' }, { headers: { 'Idempotency-Key': 'suspend-119' } });
    expect(whole(first)).toEqual({ status: 202, headers: { ...json, ...firstRequestHeaders }, body: pending(119, 'suspend', '[silent]') });
    const again = await act('d12', 119, { reason: '[silent]', action: 'suspend' }, { headers: { 'Idempotency-Key': 'suspend-119' } });
    expect(whole(again)).toEqual({ status: 202, headers: { ...json, 'idempotent-replayed': 'true', ...rateLimitHeaders({ burst: 8, minute: 58, hour: 1498 }) }, body: first.body });
    expect(whole(await act('d12', 119, { action: 'terminate', confirm: iccidOf(119) }, { headers: { 'Idempotency-Key': 'suspend-119' } }))).toEqual(
      refusal(409, 'idempotency_key_reused', 'This Idempotency-Key was already used with a different request body.', { ...json, ...rateLimitHeaders({ burst: 7, minute: 57, hour: 1497 }) }),
    );
    expect(whole(await act('d12', 119, { action: 'suspend' }))).toEqual(
      refusal(409, 'action_pending', `SIM 119 has a pending action (${first.body.action_id}): ask again once it has completed or failed.`, { ...json, ...rateLimitHeaders({ burst: 6, minute: 56, hour: 1496 }) }),
    );
    // The same key for another SIM is another request (another body): refused, nothing replayed across SIMs.
    expect((await act('d12', 120, { action: 'suspend', reason: '[silent]' }, { headers: { 'Idempotency-Key': 'suspend-119' } })).status).toBe(409);
    // Another customer group's same key and body is its own.
    expect((await act('otherdev', 901, { action: 'suspend', reason: '[silent]' }, { key: 'manageother', headers: { 'Idempotency-Key': 'suspend-119' } })).status).toBe(202);
  });

  it('answers two actions asked for one SIM at once with one 202 and one 409 action_pending, and five at once with one 202', async () => {
    const two = await Promise.all([act('d13', 110, { action: 'suspend', reason: '[silent]' }), act('admin1', 110, { action: 'terminate', confirm: iccidOf(110), reason: '[silent]' })]);
    expect(two.map((answer) => answer.status).sort()).toEqual([202, 409]);
    const won = two.find((answer) => answer.status === 202)!;
    expect(two.find((answer) => answer.status === 409)!.body).toEqual({
      detail: `SIM 110 has a pending action (${won.body.action_id}): ask again once it has completed or failed.`,
      code: 'action_pending',
    });
    const five = await Promise.all(['d14', 'd15', 'd16', 'd17', 'd18'].map((user) => act(user, 111, { action: 'suspend', reason: '[silent]' })));
    expect(five.map((answer) => answer.status).sort()).toEqual([202, 409, 409, 409, 409]);
    const listed = await get('d14', 'manage', '/developer/api/sims/111/actions/');
    expect([listed.body.count, listed.body.results.map((action: { status: string }) => action.status)]).toEqual([1, ['pending']]);
  });
});

describe('tenant scope and reading actions', () => {
  it("answers another group's key, or a sub-customer's key, about a SIM outside its scope exactly as a missing SIM (404)", async () => {
    const notFound = { detail: 'Not found.', code: 'not_found' };
    for (const [user, keyLabel] of [['otherdev', 'manageother'], ['northdev', 'managenorth']] as const) {
      const asked = await act(user, 112, { action: 'suspend' }, { key: keyLabel });
      const listed = await get(user, keyLabel, '/developer/api/sims/112/actions/');
      expect([asked.status, asked.body, listed.status, listed.body]).toEqual([404, notFound, 404, notFound]);
    }
    // A sub-customer's own SIM is in its key's scope.
    expect((await get('northdev', 'managenorth', '/developer/api/sims/103/actions/')).status).toBe(200);
  });

  it('lists a SIM\'s actions newest first, paged as A1, and reads one only under its own SIM', async () => {
    const first = await act('d19', 113, { action: 'suspend', reason: 'first [rejected]' });
    expect((await ended(113, first.body.action_id)).status).toBe('failed');
    const second = await act('d19', 113, { action: 'suspend', reason: 'second [silent]' });
    expect(second.status).toBe(202);
    const page1 = await get('d19', 'manage', '/developer/api/sims/113/actions/?page_size=1');
    const page2 = await get('d19', 'manage', '/developer/api/sims/113/actions/?page_size=1&page=2');
    const all = await get('d20', 'manage', `/developer/api/sims/${iccidOf(113)}/actions/`);
    expect([page1.status, page1.body]).toEqual([200, { count: 2, page: 1, page_size: 1, total_pages: 2, results: [second.body] }]);
    expect(page2.body).toMatchObject({ count: 2, page: 2, results: [{ action_id: first.body.action_id, status: 'failed' }] });
    expect(all.body).toMatchObject({ count: 2, page: 1, page_size: 25, total_pages: 1, results: [{ action_id: second.body.action_id }, { action_id: first.body.action_id }] });
    expect(whole(await get('d20', 'manage', '/developer/api/sims/113/actions/?page=0'))).toEqual(
      refusal(400, 'invalid_page', 'page must be a whole number, 1 or more.', { ...json, ...rateLimitHeaders({ burst: 8, minute: 58, hour: 1498 }) }),
    );
    const notFound = { detail: 'Not found: no action with this id for this SIM.', code: 'not_found' };
    const elsewhere = await get('d20', 'manage', `/developer/api/sims/112/actions/${first.body.action_id}/`);
    const notAnId = await get('d20', 'manage', '/developer/api/sims/113/actions/constructor/');
    expect([elsewhere.status, elsewhere.body, notAnId.status, notAnId.body]).toEqual([404, notFound, 404, notFound]);
  });
});

describe('the operator emulator\'s outcomes and the ends of an action', () => {
  it('rejected: the action fails as rejected_by_operator with the operator\'s reason, the SIM keeps its status, action.failed follows', async () => {
    const asked = await act('d21', 112, { action: 'suspend', reason: 'lost [rejected]' });
    const done = await ended(112, asked.body.action_id);
    expect([done.status, done.failure, await simStatus(112)]).toEqual(['failed', { code: 'rejected_by_operator', detail: 'rejected by the operator emulator' }, 'active']);
    const events = await awaitEvents(112, ['action.failed']);
    expect(events).toEqual([
      ['action.failed', { ...asked.body, status: 'failed', completed_at: expect.stringMatching(isoNow), failure: { code: 'rejected_by_operator', detail: 'rejected by the operator emulator' } }],
    ]);
  });

  it('silent: the action stays pending until its 24 hours are over, then fails as operator_timeout (the sweep), with action.failed', async () => {
    const asked = await act('d22', 115, { action: 'suspend', reason: 'quiet [silent]' });
    await eventually(async () => {
      const requests = (await (await fetch(`${runtime.baseUrl}/_local/operator/requests`)).json()) as { action_id: string }[];
      expect(requests.map((request) => request.action_id)).toContain(asked.body.action_id);
    });
    expect((await actionItem(115, asked.body.action_id))?.sent_at).toMatch(isoNow);
    // The scheduled sweep at its time now ends nothing; a day later, it ends this one.
    await runtime.schedules.runNow();
    expect((await actionItem(115, asked.body.action_id))?.status).toBe('pending');
    expect(await expireActions({ db, tableName: runtime.tableName }, Date.now() + 24 * 3_600_000 + 60_000)).toBeGreaterThanOrEqual(1);
    const done = await ended(115, asked.body.action_id);
    expect([done.status, done.failure]).toEqual(['failed', { code: 'operator_timeout', detail: 'The operator did not confirm the action within 24 hours.' }]);
    expect((await awaitEvents(115, ['action.failed']))[0]![1]).toMatchObject({ action_id: asked.body.action_id, failure: { code: 'operator_timeout' } });
    // The SIM is free again.
    expect((await act('d22', 115, { action: 'suspend', reason: '[silent]' })).status).toBe(202);
  });

  it('superseded: a feed record that sets another status first fails the pending action', async () => {
    const asked = await act('d23', 120, { action: 'suspend', reason: 'slow [silent]' });
    const feed = await fetch(`${runtime.baseUrl}/_local/feed`, {
      method: 'POST',
      body: JSON.stringify({ type: 'sim_status', source_time: new Date().toISOString(), iccid: iccidOf(120), status: 'inactive' }),
    });
    expect(feed.status).toBe(202);
    const done = await ended(120, asked.body.action_id);
    expect([done.status, done.failure]).toEqual(['failed', { code: 'superseded', detail: 'A record of the operator set the SIM to inactive before the action was confirmed.' }]);
    expect((await awaitEvents(120, ['action.failed'])).map(([type]) => type)).toEqual(['action.failed']);
  });
});

describe('without an operator, and the emulator itself', () => {
  it('answers a new action 503 operator_not_configured when no OPERATOR_PROVISIONING_URL is configured (the deployed function without one)', async () => {
    // The route as defineFunction builds it from a configuration without OPERATOR_PROVISIONING_URL, on this runtime's table.
    const route = requestSimActionRoute(requestSimActionDeps({ ...readConfiguration(functionConfigs['request-sim-action'], { ...runtime.env, OPERATOR_PROVISIONING_URL: '' }, 'request-sim-action') } as never));
    const event = buildApiGatewayEvent(
      { resource: '/developer/api/sims/{sim}/actions/', pathParameters: { sim: '116' } },
      {
        method: 'POST',
        path: '/developer/api/sims/116/actions/',
        rawQuery: '',
        rawHeaders: ['Authorization', `Bearer ${tokenOf('d24')}`, 'X-Customer-API-Key', keyOf('manage'), 'Content-Type', 'application/json'],
        body: Buffer.from(JSON.stringify({ action: 'suspend' })),
        sourceIp: '127.0.0.1',
        localPort: 3000,
      },
    );
    const answer = await route(event, lambdaContext({ name: 'request-sim-action' }));
    expect([answer.statusCode, JSON.parse(answer.body)]).toEqual([
      503,
      { detail: "The operator's provisioning system is not configured in this environment: SIM actions are not available.", code: 'operator_not_configured' },
    ]);
  });

  it('refuses a request that is not signed with the secret (401), and reads its settings from the environment', async () => {
    const unsigned = await fetch(`${runtime.baseUrl}/_local/operator/actions`, { method: 'POST', body: '{"action_id":"act_x"}', headers: { 'X-Operator-Signature': 'sha256=00' } });
    expect([unsigned.status, await unsigned.json()]).toEqual([401, { reason: 'X-Operator-Signature is missing or does not match the body' }]);
    expect(operatorSettingsFromEnv({})).toEqual({});
    expect(operatorSettingsFromEnv({ OPERATOR_SIMULATOR_DELAY_MS: '0', OPERATOR_SIMULATOR_OUTCOME: 'silent' })).toEqual({ delayMs: 0, outcome: 'silent' });
    expect(() => operatorSettingsFromEnv({ OPERATOR_SIMULATOR_OUTCOME: 'approved' })).toThrow('OPERATOR_SIMULATOR_OUTCOME must be one of completed, rejected, silent, not "approved"');
    expect(() => operatorSettingsFromEnv({ OPERATOR_SIMULATOR_DELAY_MS: '2s' })).toThrow('OPERATOR_SIMULATOR_DELAY_MS must be a whole number of milliseconds, not "2s"');
  });
});
