import { spawn } from 'node:child_process';
import { fetchFromRuntime } from '../support/request';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from '../../local/handler-loader';
import { isRunning, readyLine, spawnNpmStart, waitForReady, type StartedInstance } from '../support/npm-start';

const instances: StartedInstance[] = [];
const temporary = mkdtempSync(join(tmpdir(), 'start-test-'));

const npmStart = (env: Record<string, string>, args: string[] = [], direct = false): StartedInstance =>
  spawnNpmStart(instances, env, args, direct);

const portIsClosed = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });

afterAll(async () => {
  for (const instance of instances) {
    if (isRunning(instance)) {
      try {
        process.kill(-instance.child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
  rmSync(temporary, { recursive: true, force: true });
});

/** Live processes (zombies excluded) whose environment carries START_TEST_MARKER=marker: the start command and every descendant. */
const markedProcesses = (marker: string): Array<{ pid: number; command: string }> => {
  const found: Array<{ pid: number; command: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(`START_TEST_MARKER=${marker}`)) continue;
      found.push({ pid: Number(entry), command: readFileSync(`/proc/${entry}/cmdline`, 'latin1').replaceAll('\0', ' ').trim() });
    } catch {
      /* gone, or not ours to read */
    }
  }
  return found;
};

const until = async (condition: () => boolean, timeoutMs: number, what: string): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe.runIf(existsSync('/proc/self/environ'))('stopping at any moment', () => {
  type Moment = 'first output line' | 'DynamoDB Local JVM running, not ready yet' | '0.2 s after the ready line' | 'after a request, 1 s later';
  /**
   * Runs the start script's own command (no npm in between, so the signal goes to the runtime
   * itself), sends SIGTERM at `moment`, and returns the exit, every process of the run seen
   * while it ran (by an environment marker that every descendant inherits), and those left.
   */
  const stopAt = async (moment: Moment, env: Record<string, string> = {}) => {
    const marker = randomUUID();
    const instance = npmStart({ PORT: '0', START_TEST_MARKER: marker, ...env }, [], true);
    const seen = new Map<number, string>();
    const watch = setInterval(() => {
      for (const { pid, command } of markedProcesses(marker)) seen.set(pid, command);
    }, 50);
    try {
      const jvmRunning = () => [...seen.values()].some((command) => command.includes('DynamoDBLocal.jar'));
      if (moment === 'first output line') await until(() => instance.stdout.length > 0, 60_000, 'the first line');
      else if (moment === 'DynamoDB Local JVM running, not ready yet') await until(jvmRunning, 150_000, 'the JVM');
      else {
        const url = await waitForReady(instance, 150_000);
        if (moment === '0.2 s after the ready line') await new Promise((resolve) => setTimeout(resolve, 200));
        else {
          expect((await fetchFromRuntime(`${url}/no-such-path`)).status).toBe(404);
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
      const readyBefore = readyLine.test(instance.stdout);
      instance.child.kill('SIGTERM');
      const exit = await instance.exited;
      clearInterval(watch);
      // A process that has exited may take a moment to be reaped by its new parent.
      await until(() => markedProcesses(marker).length === 0, 2000, 'the processes of the run to be gone').catch(() => undefined);
      return { exit, readyBefore, seen: [...seen.values()], left: markedProcesses(marker), instance };
    } finally {
      clearInterval(watch);
    }
  };

  it('exits 0 with every child gone on SIGTERM at the first output line and while DynamoDB Local starts', async () => {
    const first = await stopAt('first output line');
    expect({ exit: first.exit, left: first.left }).toEqual({ exit: { code: 0, signal: null }, left: [] });
    const starting = await stopAt('DynamoDB Local JVM running, not ready yet');
    expect({ exit: starting.exit, left: starting.left, readyBefore: starting.readyBefore }).toEqual({
      exit: { code: 0, signal: null },
      left: [],
      readyBefore: false,
    });
    expect(starting.seen.some((command) => command.includes('DynamoDBLocal.jar'))).toBe(true);
    expect(starting.instance.stdout).not.toMatch(readyLine);
  }, 240_000);

  it('exits 0 with every child gone on SIGTERM 0.2 s after the ready line and later; configured secrets are masked in the banner', async () => {
    const secrets = {
      STOREFRONT_SERVICE_TOKEN: 'storefront_configured_Yq3Vt8Lm2Kp7Wz4R',
      STRIPE_WEBHOOK_SECRET: 'whsec_configured_Hn5Bx2Qr8Tc4Jm7Vd1Ls',
      SMS_PROVIDER_TOKEN: 'smsprov_configured_Ap4Ks9Dm2Fq',
      SMS_RECEIPT_SECRET: 'short_Rc7x',
      CALLBACK_SIGNING_SECRET: 'cbsign_configured_Uy6Ne3Wo8Gi',
      STRIPE_SECRET_KEY: 'sk_test_configured_Zx8Cv5Bn2Mq9Lk4Jh',
      STRIPE_API_BASE: 'http://127.0.0.1:9',
    };
    const [soon, later] = await Promise.all([stopAt('0.2 s after the ready line'), stopAt('after a request, 1 s later', secrets)]);
    for (const run of [soon, later]) {
      expect({ exit: run.exit, left: run.left, readyBefore: run.readyBefore }).toEqual({ exit: { code: 0, signal: null }, left: [], readyBefore: true });
      expect(run.seen.some((command) => command.includes('DynamoDBLocal.jar'))).toBe(true);
      expect(run.instance.stdout.match(new RegExp(readyLine.source, 'gm'))).toHaveLength(1);
    }
    // Demo values, chosen by the runtime itself, are shown whole; configured ones masked.
    expect(soon.instance.stdout).toMatch(/^  Storefront service token  storefront_demo_7Qm2Xc9LpV4tR8sW$/m);
    expect(soon.instance.stdout).toMatch(/^  Stripe webhook secret     whsec_demo_5Kx8Pz2Lq7Vn4Rb9Tc3Wm6Yd$/m);
    const output = later.instance.stdout + later.instance.stderr;
    for (const value of Object.values(secrets).slice(0, -1)) expect(output).not.toContain(value);
    for (const line of [
      '  Storefront service token  stor… (38 characters), from STOREFRONT_SERVICE_TOKEN',
      '  Stripe webhook secret     whse… (37 characters), from STRIPE_WEBHOOK_SECRET',
      '  SMS provider token        smsp… (30 characters), from SMS_PROVIDER_TOKEN',
      '  SMS receipt secret        … (10 characters), from SMS_RECEIPT_SECRET',
      '  Callback signing secret   cbsi… (29 characters), from CALLBACK_SIGNING_SECRET',
      '  Stripe                    configured (sk_t… (36 characters)) against http://127.0.0.1:9',
    ]) {
      expect(later.instance.stdout.split('\n')).toContain(line);
    }
  }, 300_000);
});

/**
 * Polls a runtime's webhook inbox (another process: its self-signed certificate is not at hand,
 * so this one request skips verification) until a delivery mentions `messageId`; its signature verdict.
 */
const waitForInbox = async (url: string, messageId: string): Promise<unknown> => {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const body = await new Promise<string>((resolve, reject) => {
      httpsGet(url, { rejectUnauthorized: false }, (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      }).on('error', reject);
    });
    const found = (JSON.parse(body) as { deliveries: Array<{ body: string; signature: unknown }> }).deliveries.find((entry) => entry.body.includes(messageId));
    if (found) return found.signature;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no delivery for ${messageId} in ${url}`);
};

describe('npm start', () => {
  it('runs two instances side by side, answers JSON 404 for an unknown path, and stops cleanly on SIGTERM', async () => {
    const tinySeed = join(temporary, 'seed.json');
    writeFileSync(tinySeed, JSON.stringify({ customers: [{ id: 'solo', name: 'Solo Ltd', parent: null, sms_enabled: false }] }));
    const demo = npmStart({ PORT: '0' });
    const tiny = npmStart({ PORT: '0', SEED_FILE: tinySeed });
    const [demoUrl, tinyUrl] = await Promise.all([waitForReady(demo, 150_000), waitForReady(tiny, 150_000)]);

    for (const [instance, url] of [[demo, demoUrl], [tiny, tinyUrl]] as const) {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(url).not.toBe('http://127.0.0.1:0');
      const response = await fetchFromRuntime(`${url}/no-such-path`);
      expect({ status: response.status, type: response.headers.get('content-type'), body: await response.json() }).toEqual({
        status: 404,
        type: 'application/json',
        body: { detail: 'Not found.', code: 'not_found' },
      });
      expect(instance.stdout).toMatch(/Storefront service token\s+\S+/);
      expect(instance.stdout).toMatch(/Stripe webhook secret\s+whsec_\S+/);
    }
    expect(demoUrl).not.toBe(tinyUrl);
    expect(demo.stdout).toMatch(/Area A bearer token\s+bearer_\S+/);
    // STRIPE_SECRET_KEY unset: the embedded Stripe emulator, on the API's origin, and how to pay.
    expect(demo.stdout).toContain(`  Stripe                    the embedded emulator at ${demoUrl}/_local/stripe (STRIPE_SECRET_KEY unset;`);
    expect(demo.stdout).toContain(`  curl -s ${demoUrl}/_local/stripe/v1/payment_intents/PI_ID/confirm -d client_secret=CLIENT_SECRET -d payment_method=pm_card_visa`);
    // The developer console's URL (issue #12 point 4), and the page answers there.
    expect(demo.stdout).toContain(`  Developer console   ${demoUrl}/_local/  (open it in a browser:`);
    expect(tiny.stdout).toContain(`  Developer console   ${tinyUrl}/_local/  (open it in a browser:`);
    expect(demo.stdout).toMatch(/curl -s -H 'Authorization: Bearer bearer_\S+' -H 'X-Customer-API-Key: devkey_\S+' http:\S+\/developer\/api\/sims\//);
    expect(tiny.stdout).toContain(`curl -s -i ${tinyUrl}/no-such-path`);
    // The reference page and its document, as the banner names them.
    expect(demo.stdout).toContain(`  API reference       ${demoUrl}/_local/docs  (OpenAPI 3.1: ${demoUrl}/_local/openapi.json)`);
    const page = await fetch(`${demoUrl}/_local/docs`);
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await page.text()).toContain(`<script src="/_local/docs/scalar-standalone.js"></script>`);
    expect(((await (await fetch(`${demoUrl}/_local/openapi.json`)).json()) as { servers: { url: string }[] }).servers[0]!.url).toBe(demoUrl);
    // The banner's example requests work against the demo seed.
    const curls = [...demo.stdout.matchAll(/^  curl -s (?:-i )?-H '([^']+)' -H '([^']+)' (\S+)$/gm)];
    expect(curls).toHaveLength(3);
    const statuses = [];
    for (const [, first, second, url] of curls) {
      const headers = Object.fromEntries([first!, second!].map((header) => header.split(': ') as [string, string]));
      statuses.push((await fetch(url!, { headers })).status);
    }
    expect(statuses).toEqual([200, 200, 404]);
    // The banner's checkout examples each answer 201 (demo SKUs, the embedded Stripe emulator).
    const checkouts = [...demo.stdout.matchAll(/^  curl -s -X POST -H '(Authorization: Bearer storefront[^']+)' -H 'Content-Type: application\/json' -d '([^']+)' (\S+)$/gm)];
    expect(checkouts.map(([, , , url]) => new URL(url!).pathname)).toEqual(['/api/v1/checkout', '/api/v1/physical-checkout', '/api/v1/iot-physical-checkout']);
    const orderIds: string[] = [];
    for (const [, authorization, body, url] of checkouts) {
      const answer = await fetch(url!, { method: 'POST', headers: { Authorization: authorization!.slice('Authorization: '.length), 'Content-Type': 'application/json' }, body });
      expect({ url, status: answer.status }).toEqual({ url, status: 201 });
      const created = (await answer.json()) as { order_id: string };
      expect(created).toMatchObject({ order_id: expect.any(String), client_secret: expect.stringMatching(/^pi_\w+_secret_\w+$/), currency: 'GBP' });
      orderIds.push(created.order_id);
    }
    // The developer console lists them, each with its Pay button.
    const consolePage = await fetch(`${demoUrl}/_local/`);
    expect([consolePage.status, consolePage.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    const consoleHtml = await consolePage.text();
    for (const orderId of orderIds) expect(consoleHtml).toContain(`<form method="post" action="/_local/orders/${orderId}/pay">`);
    // The banner's SMS example sends to the webhook inbox, whose listing then shows the verified receipt.
    const sms = /^  curl -s -X POST -H '([^']+)' -H '([^']+)' -H 'Content-Type: application\/json' -d '([^']+)' (\S+)$/m.exec(demo.stdout);
    expect(sms).not.toBeNull();
    const [, smsAuth, smsKey, smsBody, smsUrl] = sms!;
    const smsHeaders = Object.fromEntries([smsAuth!, smsKey!, 'Content-Type: application/json'].map((header) => header.split(': ') as [string, string]));
    const sent = await fetch(smsUrl!, { method: 'POST', headers: smsHeaders, body: smsBody });
    expect(sent.status).toBe(202);
    const { message_id: messageId } = (await sent.json()) as { message_id: string };
    const inboxUrl = /^  curl -sk (\S+) /m.exec(demo.stdout)?.[1];
    expect(inboxUrl).toBe(JSON.parse(smsBody!).callback_url);
    const verified = await waitForInbox(inboxUrl!, messageId);
    expect(verified).toEqual({ status: 'verified', owner: 'acme' });
    expect(tiny.stdout).toContain(tinySeed);
    // Each instance has an outbox of its own, removed when it stops.
    const outboxes = [demo, tiny].map((instance) => /E-mail outbox\s+(\S+)/.exec(instance.stdout)?.[1] ?? '');
    for (const outbox of outboxes) expect(existsSync(outbox)).toBe(true);
    expect(outboxes[0]).not.toBe(outboxes[1]);

    const dynamodbPorts = [demo, tiny].map((instance) => Number(/DynamoDB Local\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(instance.stdout)?.[1]));
    for (const port of dynamodbPorts) expect(await portIsClosed(port)).toBe(false);

    for (const instance of [demo, tiny]) instance.child.kill('SIGTERM');
    const exits = await Promise.all([demo.exited, tiny.exited]);
    expect(exits).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    for (const instance of [demo, tiny]) expect(instance.stdout.match(new RegExp(readyLine.source, 'gm'))).toHaveLength(1);
    for (const port of dynamodbPorts) expect(await portIsClosed(port)).toBe(true);
    for (const url of [demoUrl, tinyUrl]) expect(await portIsClosed(Number(new URL(url).port))).toBe(true);
    for (const outbox of outboxes) expect(existsSync(outbox)).toBe(false);
  }, 240_000);

  it('keeps the data between runs with --persist DIR and loads the seed only into a new table', async () => {
    const persistDir = join(temporary, 'persist');
    const credentials = {
      Authorization: 'Bearer bearer_persist1_Pq8Lm2Xc9Vb4Nz7Rt5Wk3Jh6Gf1Ds0Aa',
      'X-Customer-API-Key': 'devkey_persist1_Zt7Wq2Er9Ty4Ui6Op1As8Df3Gh5Jk0Ll',
    };
    const seedWithSim = (simId: number) => ({
      customers: [{ id: 'keep', name: 'Keep Ltd', parent: null, sms_enabled: false }],
      users: [{ id: 'u-keep', email: 'dev@keep.example', customer: 'keep', active: true, roles: ['developer'] }],
      bearer_tokens: [{ token: credentials.Authorization.slice('Bearer '.length), user: 'u-keep', revoked: false }],
      api_keys: [{ key: credentials['X-Customer-API-Key'], customer: 'keep', revoked: false }],
      sims: [
        {
          id: simId, iccid: `89445000000000${simId}`, msisdn: `4477009${simId}`, status: 'active', connection_status: 'active',
          customer: 'keep', tariff_name: null, data_used_mb: '1.00', data_overage_mb: '0.00', base_cost: '1.00',
          overage_cost: '0.00', data_bundle: null, updated_at: '2026-11-20T10:00:00+00:00',
        },
      ],
    });
    const firstSeed = join(temporary, 'persist-first.json');
    const secondSeed = join(temporary, 'persist-second.json');
    writeFileSync(firstSeed, JSON.stringify(seedWithSim(5001)));
    writeFileSync(secondSeed, JSON.stringify(seedWithSim(5002)));
    const status = async (url: string) => (await fetch(url, { headers: credentials })).status;

    const first = npmStart({ PORT: '0', SEED_FILE: firstSeed }, ['--persist', persistDir]);
    const firstUrl = await waitForReady(first, 150_000);
    expect(first.stdout).toContain(`data kept in ${persistDir}`);
    expect(first.stdout).toContain(`  E-mail outbox       ${join(persistDir, 'outbox')}`);
    // A SEED_FILE's credentials are not the runtime's own: masked, and the examples read them from the shell.
    const token = credentials.Authorization.slice('Bearer '.length);
    expect(first.stdout).not.toContain(token);
    expect(first.stdout).not.toContain(credentials['X-Customer-API-Key']);
    expect(first.stdout).toContain(`  Area A bearer token       bear… (${token.length} characters)`);
    expect(first.stdout).toContain(`  Area A API key            devk… (${credentials['X-Customer-API-Key'].length} characters)`);
    expect(first.stdout).toContain(`  curl -s -H "Authorization: Bearer $BEARER_TOKEN" -H "X-Customer-API-Key: $API_KEY" ${firstUrl}/developer/api/sims/`);
    expect(await status(`${firstUrl}/developer/api/sims/5001/`)).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });

    const second = npmStart({ PORT: '0', SEED_FILE: secondSeed }, ['--persist', persistDir]);
    const secondUrl = await waitForReady(second, 150_000);
    expect(second.stdout).toContain(`not loaded: the table already existed in ${persistDir}`);
    expect(await status(`${secondUrl}/developer/api/sims/5001/`)).toBe(200);
    expect(await status(`${secondUrl}/developer/api/sims/5002/`)).toBe(404);
    second.child.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
  }, 300_000);

  it('checks that its port is free before it starts anything', async () => {
    const { createServer } = await import('node:net');
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const marker = randomUUID();
    const seen = new Set<string>();
    const watch = setInterval(() => {
      for (const { command } of markedProcesses(marker)) seen.add(command);
    }, 50);
    try {
      const instance = npmStart({ PORT: String(port), START_TEST_MARKER: marker }, [], true);
      const exit = await instance.exited;
      expect({ exit, stdout: instance.stdout, stderr: instance.stderr }).toEqual({
        exit: { code: 1, signal: null },
        stdout: 'Starting the local runtime ...\n',
        stderr: `Port ${port} is in use: set PORT to another port, or PORT=0 for a free one.\n`,
      });
      // Nothing was started: no DynamoDB Local JVM (whose start took seconds before the message).
      expect([...seen].filter((command) => command.includes('DynamoDBLocal.jar'))).toEqual([]);
    } finally {
      clearInterval(watch);
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 60_000);

  it('stops at once with what to install when Java is missing', async () => {
    // A PATH with node and sh but no java.
    const bin = join(temporary, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    symlinkSync('/bin/sh', join(bin, 'sh'));
    const child = spawn(process.execPath, [join(repositoryRoot, 'node_modules/tsx/dist/cli.mjs'), 'local/start.ts'], {
      cwd: repositoryRoot,
      env: { ...process.env, PATH: bin, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    expect(code).toBe(1);
    expect(output).toContain('Java is required to run Amazon DynamoDB Local but was not found on the PATH.');
    expect(output).toContain('Install a Java runtime 17 or newer');
    expect(output).not.toContain('Local API ready at');
  }, 60_000);
});
