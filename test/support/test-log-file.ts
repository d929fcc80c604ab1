import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';

/**
 * vitest setup of both projects: the JSON log lines that code under test writes to stdout and
 * stderr (the test runtimes' handlers, gateway and pollers, shared/observability/logger.ts, and
 * the EMF lines) go to one file per test file and project, under
 * `$TMPDIR/sim-service-test-logs/`, instead of among vitest's own output (issue #22: about
 * 6,000 lines). Its path is printed once, on stderr, when a test of the file fails (or the
 * file's hooks do), and only if something was logged. Other output passes through, and a test
 * that reads the lines (test/support/log-lines.ts) still sees them while it captures.
 */

/** Where the files go; each run overwrites a file's previous one. */
export const testLogDir = join(tmpdir(), 'sim-service-test-logs');

interface Routing {
  /** The file of the test file being run; lines before the first beforeAll go to an unnamed one. */
  path: string;
  fd?: number;
  announced: boolean;
  /** The streams' own writes, for everything that is not a log line. */
  stderr: (text: string) => void;
}

const isLogLine = (chunk: unknown): boolean =>
  typeof chunk === 'string' ? chunk.startsWith('{"') : chunk instanceof Uint8Array && chunk[0] === 0x7b && chunk[1] === 0x22;

const key = Symbol.for('sim-service.test-log-file');
const registry = globalThis as typeof globalThis & { [key]?: Routing };

/** Wraps the streams' write once per process (a worker may run several test files). */
const install = (): Routing => {
  const routing: Routing = {
    path: join(testLogDir, `unnamed-${process.pid}.log`),
    announced: false,
    stderr: process.stderr.write.bind(process.stderr) as (text: string) => void,
  };
  for (const stream of [process.stdout, process.stderr]) {
    const original = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (!isLogLine(chunk)) return original(chunk, ...rest);
      if (routing.fd === undefined) {
        mkdirSync(testLogDir, { recursive: true });
        routing.fd = openSync(routing.path, 'w');
      }
      if (typeof chunk === 'string') writeSync(routing.fd, chunk);
      else writeSync(routing.fd, chunk as Uint8Array);
      const done = rest.find((argument) => typeof argument === 'function') as (() => void) | undefined;
      if (done) process.nextTick(done);
      return true;
    }) as typeof stream.write;
  }
  return routing;
};

const routing = (registry[key] ??= install());

/** Prints the file's path once, when something was logged into it. */
const announce = (): void => {
  if (routing.fd === undefined || routing.announced) return;
  routing.announced = true;
  routing.stderr(`\nRuntime log of this test file: ${routing.path}\n`);
};

beforeAll(({}, file) => {
  const { filepath, projectName } = file as { filepath?: string; projectName?: string };
  const name = (filepath ?? `unnamed-${process.pid}`).replace(/^.*?\/test\//, 'test/').replace(/[^A-Za-z0-9.-]+/g, '_');
  routing.path = join(testLogDir, `${projectName ? `${projectName}-` : ''}${name}.log`);
  routing.fd = undefined;
  routing.announced = false;
});

beforeEach(({ onTestFailed }) => onTestFailed(announce));

afterAll(({}, file) => {
  // A failure in the file's own hooks (a runtime that did not start) fails no single test.
  const failed = (task: { result?: { state?: string }; tasks?: unknown[] }): boolean =>
    task.result?.state === 'fail' || (task.tasks ?? []).some((child) => failed(child as typeof task));
  if (failed(file as never)) announce();
  if (routing.fd !== undefined) closeSync(routing.fd);
  routing.fd = undefined;
});
