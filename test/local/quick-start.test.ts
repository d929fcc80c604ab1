import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../local/handler-loader';
import { isRunning, spawnNpmStart, waitForReady, type StartedInstance } from '../support/npm-start';
import { eventually } from '../support/eventually';

/**
 * The README's quick start, run as written against a fresh runtime (issue #22): `npm start`,
 * the banner's first curl, one of its checkout curls, then the `npm run pay -- <order_id>` line
 * npm start prints for that order; the order ends fulfilled on the developer console. The only
 * thing added is PORT=0 (another instance may hold 3000 on this machine), so the printed pay
 * line carries `--base`.
 */
const instances: StartedInstance[] = [];
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const quickStart = /^## Quick start\n([\s\S]*?)\n## /m.exec(readme)?.[1] ?? '';

afterAll(() => {
  for (const instance of instances) {
    if (isRunning(instance)) process.kill(-instance.child.pid!, 'SIGKILL');
  }
});

const bash = async (command: string) => (await promisify(execFile)('bash', ['-c', command], { cwd: repositoryRoot, env: process.env })).stdout;

describe("the README's quick start", () => {
  it('starts, lists the SIMs with the first curl, checks out, and the printed pay command pays the order, which is fulfilled', async () => {
    // What the quick start tells a new user to run, in its order.
    expect(quickStart).toContain('\n    npm start\n');
    expect(quickStart.indexOf("the banner's first `curl`")).toBeLessThan(quickStart.indexOf('checkout curls'));
    expect(quickStart.indexOf('checkout curls')).toBeLessThan(quickStart.indexOf('`npm run pay -- <order_id>`'));
    expect(quickStart).toContain('/_local/');

    const instance = spawnNpmStart(instances, { PORT: '0' });
    const base = await waitForReady(instance, 180_000);
    const banner = instance.stdout.split('\n');

    // The banner's first curl: the demo customer's SIMs.
    const firstCurl = banner.find((line) => line.trim().startsWith('curl '))!.trim();
    const sims = JSON.parse(await bash(firstCurl)) as { count: number; results: Array<{ iccid: string }> };
    expect(sims.count).toBeGreaterThan(0);
    expect(sims.results[0]!.iccid).toMatch(/^\d{19,20}$/);

    // One of its checkout curls (the first: an eSIM).
    const checkoutCurl = banner[banner.findIndex((line) => line.includes('Check out')) + 1]!.trim();
    expect(checkoutCurl).toMatch(/^curl .* \S+\/api\/v1\/checkout$/);
    const order = JSON.parse(await bash(checkoutCurl)) as { order_id: string; client_secret: string };
    expect(order.client_secret).toMatch(/^pi_\w+_secret_\w+$/);

    // The ready pay line npm start printed for it, run as printed.
    const printed = await eventually(() => {
      const line = instance.stdout.split('\n').find((candidate) => candidate.includes(`npm run pay -- ${order.order_id}`));
      expect(line).toBeDefined();
      return line!;
    }, 10_000);
    const payCommand = /npm run pay -- \S+(?: --base \S+)?/.exec(printed)![0];
    expect(payCommand).toBe(`npm run pay -- ${order.order_id} --base ${base}`);
    expect(await bash(payCommand)).toMatch(/^pi_\w+: succeeded \(HTTP 200\)$/m);

    // The console shows the order fulfilled.
    await eventually(async () => {
      const page = await (await fetch(`${base}/_local/`)).text();
      const card = page.slice(page.indexOf(`id="order-${order.order_id}"`));
      expect(card.slice(0, card.indexOf('</h3>'))).toContain('>fulfilled<');
    }, 30_000);

    instance.child.kill('SIGTERM');
    expect(await instance.exited).toEqual({ code: 0, signal: null });
  }, 300_000);
});
