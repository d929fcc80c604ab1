import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repositoryRoot } from '../../local/handler-loader';

/** The request id of a fixture's event: every answer carries it as X-Request-Id. */
const requestIdOf = (file: string): string =>
  (JSON.parse(readFileSync(join(repositoryRoot, file), 'utf8')) as { requestContext: { requestId: string } }).requestContext.requestId;

const invoke = (args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn('npm', ['run', '-s', 'invoke', '--', ...args], { cwd: repositoryRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });

describe('npm run invoke', () => {
  it('invokes a handler once with a fixture and prints only its result on stdout', async () => {
    const result = await invoke(['default-fallback', 'events/default-fallback.json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      statusCode: 404,
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestIdOf('events/default-fallback.json') },
      body: JSON.stringify({ detail: 'Not found.', code: 'not_found' }),
    });
  }, 120_000);

  it('signs the committed Stripe webhook fixture again at invoke time, so it verifies; --keep-signature sends the expired one', async () => {
    const fresh = await invoke(['stripe-webhook', 'events/stripe-webhook.json']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(JSON.parse(fresh.stdout)).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestIdOf('events/stripe-webhook.json') },
      body: JSON.stringify({ received: true }),
    });
    expect(fresh.stderr).toContain("Stripe-Signature made again with the runtime's STRIPE_WEBHOOK_SECRET");
    const kept = await invoke(['stripe-webhook', 'events/stripe-webhook.json', '--keep-signature']);
    expect(kept.code, kept.stderr).toBe(0);
    expect(JSON.parse(kept.stdout)).toEqual({
      statusCode: 400,
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestIdOf('events/stripe-webhook.json') },
      body: JSON.stringify({ detail: 'The Stripe-Signature header is missing or does not match the body.', code: 'invalid_signature' }),
    });
  }, 180_000);

  it('refuses an unknown name or a missing file with a message and a non-zero exit', async () => {
    const unknown = await invoke(['no-such-function', 'events/default-fallback.json']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('Unknown function no-such-function. Known: ');
    const missing = await invoke(['default-fallback', 'events/no-such-file.json']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Cannot read the event file events/no-such-file.json');
  }, 60_000);
});
