import { execFile } from 'node:child_process';
import { fetchFromRuntime } from '../support/request';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { demoSeedFile } from '../../local/cli-options';
import { lifecycleUrlOf } from '../../local/console/sections/webhooks';
import { demoCredentials } from '../../local/demo-credentials';
import { bannerLines } from '../../local/start-banner';
import { useTestRuntime } from '../support/runtime';
import { eventually } from '../support/eventually';

/**
 * The start banner's lifecycle-event steps, the developer console and docs/webhooks.md agree
 * (issue #22, point 9): the banner's subscribe curl and the documented one make the inbox's
 * subscription exactly as the console's "Subscribe the webhook inbox" does (the inbox's
 * `/lifecycle`, every event type), so the console knows it, and usage.updated arrives too.
 */
const seed: unknown = JSON.parse(readFileSync(demoSeedFile, 'utf8'));
const credentials = demoCredentials(seed);
const allEvents = ['line.activated', 'line.suspended', 'line.resumed', 'line.cancelled', 'usage.updated', 'identity.rotated', 'identity.verified', 'action.completed', 'action.failed'];

const runtime = useTestRuntime({ seed });

const bash = async (script: string, env: Record<string, string> = {}) =>
  (await promisify(execFile)('bash', ['-c', script], { env: { ...process.env, ...env } })).stdout;

const developer = { Authorization: `Bearer ${credentials.bearerToken}`, 'X-Customer-API-Key': credentials.apiKey! };

const subscriptions = async () =>
  ((await (await fetchFromRuntime(`${runtime.baseUrl}/developer/api/webhooks/`, { headers: developer })).json()) as { results: Array<{ id: string; url: string; events: string[] }> })
    .results;

/** Whether the console shows the inbox as subscribed for the demo key's customer. */
const consoleKnowsInbox = async () => (await (await fetch(runtime.consoleUrl)).text()).includes('The webhook inbox is subscribed');

const unsubscribeAll = async () => {
  for (const { id } of await subscriptions()) await fetchFromRuntime(`${runtime.baseUrl}/developer/api/webhooks/${id}/`, { method: 'DELETE', headers: developer });
};

const inboxTypes = () => runtime.inbox.deliveries().filter((delivery) => delivery.path === '/lifecycle').map((delivery) => (JSON.parse(delivery.body) as { type: string }).type);

describe("the start banner's and the doc's lifecycle steps", () => {
  it("subscribe the inbox as the console's button does: every event, so the console knows it and usage.updated arrives", async () => {
    const lines = bannerLines({ runtime, seed, seedSource: demoSeedFile, configured: {} });
    const subscribe = lines.find((line) => line.includes('/developer/api/webhooks/'))!;
    expect(await consoleKnowsInbox()).toBe(false);
    const created = JSON.parse(await bash(subscribe)) as { url: string; events: string[] };
    expect([created.url, created.events]).toEqual([lifecycleUrlOf(runtime.inbox.url), allEvents]);
    expect(await consoleKnowsInbox()).toBe(true);

    const change = await fetch(`${runtime.baseUrl}/_local/sims/${credentials.iccid}`, { method: 'POST', body: JSON.stringify({ data_used_mb: '321.5' }) });
    expect(change.status).toBe(200);
    await eventually(() => expect(inboxTypes()).toContain('usage.updated'), 20_000);
    await unsubscribeAll();
  });

  it("the operator feed's line applies a usage record: 202, then the SIM's usage and a usage.updated", async () => {
    const lines = bannerLines({ runtime, seed, seedSource: demoSeedFile, configured: {}, now: new Date() });
    const feed = lines.find((line) => line.includes('/_local/feed'))!;
    await bash(lines.find((line) => line.includes('/developer/api/webhooks/'))!);
    const usageEvents = () => inboxTypes().filter((type) => type === 'usage.updated').length;
    const before = usageEvents();
    expect(JSON.parse(await bash(feed.split('    #')[0]!))).toEqual({ accepted: 1, rejected: [] });
    // The event says the record applied; then the SIM shows it (one read: Area A is rate limited).
    await eventually(() => expect(usageEvents()).toBe(before + 1), 20_000);
    const sim = (await (await fetchFromRuntime(`${runtime.baseUrl}/developer/api/sims/${credentials.simId}/`, { headers: developer })).json()) as { usage: { data_used_mb: string } };
    expect(sim.usage.data_used_mb).toBe('250.00');
    await unsubscribeAll();
  });

  it("docs/webhooks.md's snippet, with the banner's values, makes the same subscription", async () => {
    const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
    const snippet = /## Locally[\s\S]*?```sh\n([\s\S]*?)```/.exec(doc)![1]!;
    const [definitions, commands] = [snippet.split('\n').filter((line) => /^[A-Z]+=/.test(line)), snippet.split('\n').filter((line) => !/^[A-Z]+=/.test(line))];
    expect(definitions.map((line) => line.split('=')[0])).toEqual(['BASE', 'TOKEN', 'KEY', 'INBOX']);
    await bash(commands.join('\n'), { BASE: runtime.baseUrl, TOKEN: credentials.bearerToken!, KEY: credentials.apiKey!, INBOX: runtime.inbox.url });
    expect((await subscriptions()).map(({ url, events }) => [url, events])).toEqual([[lifecycleUrlOf(runtime.inbox.url), allEvents]]);
    expect(await consoleKnowsInbox()).toBe(true);
    await unsubscribeAll();
  });
});
