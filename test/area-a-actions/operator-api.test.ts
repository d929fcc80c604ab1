import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpOperatorProvisioning, provisioningSignature } from '../../shared/adapters/operator-provisioning/provisioning-api';
import type { SimItem } from '../../shared/db/items';
import { key } from '../../shared/db/keys';
import { RetryScheduled } from '../../shared/queues/consumer';
import { sendAction, type SendActionDeps } from '../../shared/sim-actions/send-action';
import { newActionId, newActionItem, readAction, readPendingLock, settleAction, writeNewAction } from '../../shared/sim-actions/store';
import { closedPort } from '../area-a-sms/support/http';
import { createTestTable, testDocumentClient } from '../support/resources';

/**
 * The operator side of a SIM action (issue #33; docs/operator-provisioning-api.md): the
 * send-sim-action consumer's work against an HTTP server standing in for the operator's
 * provisioning API (port 0) and DynamoDB Local: the signed request, an acceptance, a refusal that
 * fails the action at once with the operator's reason, and the answers that are tried again on
 * the schedule until the last attempt.
 */

const secret = 'operator-test-secret';
const db = testDocumentClient();
let tableName: string;

/** What the stand-in answers next, and what it received. */
const operator = { status: 202, body: '{"status":"accepted"}', received: [] as { headers: IncomingMessage['headers']; body: string }[] };
const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    operator.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    response.writeHead(operator.status, { 'Content-Type': 'application/json' });
    response.end(operator.body);
  });
});
let baseUrl = '';

beforeAll(async () => {
  tableName = await createTestTable({ stream: false });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/provisioning`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  db.destroy();
});

let nextSim = 1;
/** A SIM and a pending action on it, written as the POST route writes them. */
const pendingAction = async (reason: string | null = 'reported stolen') => {
  const id = nextSim++;
  const sim = { ...key.sim(id), type: 'sim', id, iccid: `89440000000000${String(id).padStart(5, '0')}`, status: 'active', customer_id: 'acme', customer_path: ['acme'] } as unknown as SimItem;
  await db.send(new PutCommand({ TableName: tableName, Item: sim }));
  const nowMs = Date.now();
  const action = newActionItem({ actionId: newActionId(nowMs), sim, action: 'suspend', reason, requestedBy: 'u1', nowMs });
  expect(await writeNewAction({ db, tableName }, action, sim)).toEqual({ outcome: 'written' });
  return action;
};

const deps = (url = baseUrl): SendActionDeps => ({
  db,
  tableName,
  provisioning: httpOperatorProvisioning({ baseUrl: url, secret: async () => secret }),
  retrySchedule: [10, 30],
  maxAttempts: 3,
  now: Date.now,
});

/** An attempt that records the wait it is asked to hide the message for. */
const attempt = (number: number) => {
  const waits: number[] = [];
  return { waits, number, retryAfter: async (seconds: number) => void waits.push(seconds) };
};

describe('sending an action to the operator', () => {
  it('posts it signed to {OPERATOR_PROVISIONING_URL}/actions; a 2xx leaves it pending, marked sent', async () => {
    const action = await pendingAction();
    operator.status = 202;
    operator.received = [];
    await sendAction(deps(), { action_id: action.action_id, sim_id: action.sim_id }, attempt(1));
    const [request] = operator.received;
    expect(JSON.parse(request!.body)).toEqual({
      action_id: action.action_id, iccid: action.iccid, action: 'suspend', target_status: 'suspended', reason: 'reported stolen', requested_at: action.requested_at,
    });
    expect(request!.headers).toMatchObject({ 'content-type': 'application/json', 'x-operator-signature': provisioningSignature(secret, request!.body) });
    const stored = await readAction({ db, tableName }, action.sim_id, action.action_id, true);
    expect([stored?.status, stored?.sent_at]).toEqual(['pending', expect.stringMatching(/\+00:00$/)]);
  });

  it('fails the action at once as rejected_by_operator with the reason of a 4xx, freeing the SIM', async () => {
    const action = await pendingAction();
    operator.status = 422;
    operator.body = JSON.stringify({ reason: 'SIM is under a legal hold' });
    await sendAction(deps(), { action_id: action.action_id, sim_id: action.sim_id }, attempt(1));
    const stored = await readAction({ db, tableName }, action.sim_id, action.action_id, true);
    expect([stored?.status, stored?.failure, await readPendingLock({ db, tableName }, action.sim_id)]).toEqual([
      'failed',
      { code: 'rejected_by_operator', detail: 'SIM is under a legal hold' },
      undefined,
    ]);
    operator.body = 'not json';
    const other = await pendingAction();
    await sendAction(deps(), { action_id: other.action_id, sim_id: other.sim_id }, attempt(1));
    expect((await readAction({ db, tableName }, other.sim_id, other.action_id, true))?.failure).toEqual({ code: 'rejected_by_operator', detail: 'the operator answered 422 without a reason' });
  });

  it.each([
    ['a 5xx', 503, undefined],
    ['a 401 (the signature not taken: a secret to fix, not a refusal)', 401, undefined],
    ['a 429', 429, undefined],
    ['no connection', 0, 'closed'],
  ])('tries %s again after the schedule\'s wait, and after the last attempt gives the message up (dead-letter queue)', async (_name, status, port) => {
    const action = await pendingAction();
    operator.status = status || 500;
    operator.body = '{}';
    const url = port === 'closed' ? `http://127.0.0.1:${await closedPort()}` : baseUrl;
    const first = attempt(1);
    await expect(sendAction(deps(url), { action_id: action.action_id, sim_id: action.sim_id }, first)).rejects.toBeInstanceOf(RetryScheduled);
    expect(first.waits).toHaveLength(1);
    expect(first.waits[0]).toBeGreaterThanOrEqual(8);
    expect(first.waits[0]).toBeLessThanOrEqual(12);
    const last = attempt(3);
    const given = sendAction(deps(url), { action_id: action.action_id, sim_id: action.sim_id }, last);
    await expect(given).rejects.toThrow(`the operator did not take action ${action.action_id} after 3 attempts`);
    await expect(given).rejects.not.toBeInstanceOf(RetryScheduled);
    expect([last.waits, (await readAction({ db, tableName }, action.sim_id, action.action_id, true))?.status]).toEqual([[], 'pending']);
  });

  it('sends nothing for an action that has ended (a late or repeated message)', async () => {
    const action = await pendingAction();
    expect(await settleAction({ db, tableName }, action.sim_id, action.action_id, { status: 'completed' }, Date.now())).toBe(true);
    expect(await settleAction({ db, tableName }, action.sim_id, action.action_id, { status: 'completed' }, Date.now())).toBe(false);
    operator.received = [];
    await sendAction(deps(), { action_id: action.action_id, sim_id: action.sim_id }, attempt(1));
    expect(operator.received).toEqual([]);
  });
});
