import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { eventually, present } from '../support/eventually';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../admin/cli';
import { deliveriesTable } from '../../local/console/sections/webhooks';
import type { WebhookDeliveryItem } from '../../shared/db/items';
import { listDeliveries } from '../../shared/webhooks/deliveries';
import { testDynamoClient } from '../support/resources';
import { useTestRuntime } from '../support/runtime';
import { call } from './support/http';
import { callerPool, sims, webhookSeed } from './support/seed';

/**
 * Issue #15, point 5, on the local runtime: the webhook inbox can be subscribed with no setup,
 * `POST {base}/_local/sims/<iccid>` and the admin CLI's `set-sim` change a SIM so that the
 * stream (read from DynamoDB Local) makes the events, and the console's table of delivery attempts
 * (local/console/sections/webhooks.ts; the page itself: test/local/developer-console.test.ts).
 */

let db: DynamoDBDocumentClient;
const acme = callerPool('acme');

const runtime = useTestRuntime(
  { seed: webhookSeed },
  {
    prepare: () => {
      db = DynamoDBDocumentClient.from(testDynamoClient());
    },
  },
);

const postSim = async (iccid: string, body: string, method = 'POST') => {
  const response = await fetch(`${runtime.baseUrl}/_local/sims/${iccid}`, { method, body: method === 'GET' ? undefined : body });
  return { status: response.status, type: response.headers.get('content-type'), body: await response.json() };
};

const inboxEvents = (type: string) =>
  runtime.inbox
    .deliveries()
    .filter((delivery) => delivery.path === '/lifecycle' && (JSON.parse(delivery.body) as { type: string }).type === type);

describe('lifecycle events on one machine', () => {
  it('subscribes the webhook inbox and delivers a SIM change made through POST /_local/sims/<iccid>, verified by the inbox', async () => {
    const created = await call(runtime.baseUrl, acme(), 'POST', '/developer/api/webhooks/', {
      url: `${runtime.inbox.url.replace(/\/$/, '')}/lifecycle`,
      events: ['line.suspended', 'usage.updated'],
    });
    expect(created.status).toBe(201);
    const { id } = created.body as { id: string };

    const changed = await postSim(sims.north.iccid, JSON.stringify({ status: 'suspended', data_used_mb: '42.5' }));
    expect(changed).toEqual({
      status: 200,
      type: 'application/json',
      body: expect.objectContaining({ iccid: sims.north.iccid, status: 'suspended', group: null, usage: { data_used_mb: '42.50', data_overage_mb: '0.00' } }),
    });
    const suspended = await eventually(() => present(inboxEvents('line.suspended')[0]));
    expect(suspended.signature).toEqual({ status: 'verified', owner: `acme webhook ${id}` });
    expect(JSON.parse(suspended.body).data).toMatchObject({ iccid: sims.north.iccid, status: 'suspended', group: 'Acme North' });
    const usage = await eventually(() => present(inboxEvents('usage.updated')[0]));
    expect(JSON.parse(usage.body).data).toEqual({
      iccid: sims.north.iccid,
      usage: { data_used_mb: '42.50', data_overage_mb: '0.00' },
      cost: { currency: 'GBP', base_cost: '£5.00', overage_cost: '£0.00', total_cost: '£5.00' },
    });

    // The admin CLI does the same against any table (here the runtime's, as against a deployed one).
    const out: string[] = [];
    const code = await runAdmin(
      ['set-sim', sims.north.iccid, '--status', 'active', '--data-used-mb', '43', '--table', runtime.tableName, '--endpoint', dynamodbEndpoint(), '--region', 'eu-west-2'],
      { env: {}, out: (line) => out.push(line), err: (line) => out.push(line) },
    );
    expect([code, out]).toEqual([0, [`SIM ${sims.north.iccid}: status active, data_used_mb 43.00`]]);
    await eventually(() => expect(inboxEvents('usage.updated').length === 2).toBe(true));
    expect(inboxEvents('line.suspended')).toHaveLength(1);

    // The consumer records an attempt once the receiver has answered, so the inbox may see the
    // last event a moment before the table does.
    const delivered = /<span class="status status-delivered">delivered<\/span> HTTP 200/g;
    const table = await eventually(async () => {
      const markup = deliveriesTable(await listDeliveries({ db, tableName: runtime.tableName }, 'acme', id)).markup;
      return present(markup.match(delivered)?.length === 3 ? markup : undefined);
    });
    expect(table).toContain('<table class="deliveries">');
    expect(table.match(delivered)).toHaveLength(3);
    expect(table).toContain('<td><code>line.suspended</code></td>');
  });

  it('refuses bad changes with JSON errors', async () => {
    expect(await postSim(sims.acme.iccid, '{')).toEqual({
      status: 400,
      type: 'application/json',
      body: { detail: 'the body is not valid JSON.', code: 'invalid_request' },
    });
    expect(await postSim(sims.acme.iccid, JSON.stringify({ status: 'lost' }))).toEqual({
      status: 400,
      type: 'application/json',
      body: { detail: 'status must be one of active, inactive, suspended, cancelled, stock, dispatched, trial.', code: 'invalid_request' },
    });
    expect(await postSim(sims.acme.iccid, JSON.stringify({ data_used_mb: '-1' }))).toEqual({
      status: 400,
      type: 'application/json',
      body: { detail: 'data_used_mb must be a decimal string such as "12.50" (at most 12 integer digits and two decimal places).', code: 'invalid_request' },
    });
    expect(await postSim(sims.acme.iccid, JSON.stringify({}))).toEqual({
      status: 400,
      type: 'application/json',
      body: { detail: 'give status, data_used_mb or both.', code: 'invalid_request' },
    });
    expect(await postSim('8944500000000009999', JSON.stringify({ status: 'active' }))).toEqual({
      status: 404,
      type: 'application/json',
      body: { detail: 'no SIM with ICCID 8944500000000009999.', code: 'not_found' },
    });
    expect(await postSim(sims.acme.iccid, '', 'GET')).toEqual({
      status: 405,
      type: 'application/json',
      body: { detail: 'Method GET is not allowed on this path; use POST.', code: 'method_not_allowed' },
    });
  });

  it('escapes every value of the console\'s delivery attempts', () => {
    const hostile = {
      PK: 'x', SK: 'x', type: 'webhook_delivery', subscription_id: 'wh_<script>', event_id: 'evt_"&\'', event_type: 'line.suspended',
      attempt: 2, outcome: 'failed', http_status: null, error: 'refused_url: <img src=x onerror=alert(1)>', attempted_at: '2026-11-25T12:00:00+00:00',
      next_attempt_at: '<b>soon</b>', expires_at: 0,
    } as WebhookDeliveryItem;
    const table = deliveriesTable([hostile]).markup;
    expect(table).not.toContain('<img');
    expect(table).not.toContain('<b>');
    expect(table).toContain(
      '<tr><td>2026-11-25T12:00:00+00:00</td><td><code>line.suspended</code></td><td><code>evt_&quot;&amp;&#39;</code></td><td>2</td><td><span class="status status-failed">failed</span> refused_url: &lt;img src=x onerror=alert(1)&gt;</td><td>&lt;b&gt;soon&lt;/b&gt;</td></tr>',
    );
    expect(deliveriesTable([]).markup).toBe('<p class="empty">No delivery attempts yet.</p>');
  });
});
