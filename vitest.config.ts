import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The HTTP suites of both areas: the test files under test/area-* that start the local
 * runtime (they call startTestRuntime, or the fixtures useTestRuntime / useShopRuntime /
 * useCallbackRuntime which wrap it: test/support/runtime.ts, test/support/shop-runtime.ts,
 * test/area-a-sms/support/callback-runtime.ts) and so reach the functions
 * over HTTP and SQS. The bundled project runs them a second time against the esbuild bundles
 * the stack deploys.
 */
const httpSuites = readdirSync(join(root, 'test'))
  .filter((folder) => folder.startsWith('area-'))
  .flatMap((folder) =>
    readdirSync(join(root, 'test', folder))
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => `test/${folder}/${file}`),
  )
  .filter((file) => /\b(startTestRuntime|use(Test|Shop|Callback)Runtime)\(/.test(readFileSync(join(root, file), 'utf8')))
  .sort();

/**
 * The HTTP suites of A3 and A4 (test/area-a-sms/) that are not about one provider: the
 * `aws-sms` project runs them with SMS_PROVIDER=aws. (The aws-*.test.ts files choose their
 * provider themselves.)
 */
const smsSuites = httpSuites.filter((file) => file.startsWith('test/area-a-sms/') && !/\/aws-[^/]*\.test\.ts$/.test(file));

/**
 * What the projects share. Their global setups start one SQS emulator and one pool of
 * DynamoDB Local instances per test run, shared by all; each test file leases an instance
 * (a fresh one after every few files: test/support/dynamodb-pool.ts) and makes its own table
 * and queues (test/support/resources.ts).
 */
const shared = {
  // Each file in its own process: handler modules read their configuration from process.env
  // once per process (at import, as at a Lambda init), so a file's runtime must not leak into
  // another's.
  pool: 'forks' as const,
  testTimeout: 30_000,
  hookTimeout: 120_000,
  // Bundles (local/bundle-build.ts) are imported by Node itself, as Lambda does, not
  // through vitest's module transform.
  server: { deps: { external: [/\/sim-service-bundles-[^/]+\//] } },
  // The test runtimes' JSON log lines go to a file per test file, its path printed when a test fails
  // (test/support/test-log-file.ts); a test whose requests got an answer docs/openapi.json does
  // not describe fails (test/support/contract.ts).
  // Each file leases a DynamoDB Local of the run's pool first (test/support/dynamodb-pool.ts).
  setupFiles: ['test/support/dynamodb-lease.ts', 'test/support/test-log-file.ts', 'test/support/contract-setup.ts'],
};

export default defineConfig({
  test: {
    // vitest's own summary, then one plain `N passed, N failed` line for CI covering both projects.
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
    // Two files at a time at least: vitest's default (one fewer than the cores) runs one at a
    // time on two cores, and most of a file's time is spent waiting for DynamoDB Local, the
    // gateway or a poller, so a second file keeps the cores busy (353 s -> 273 s here).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    teardownTimeout: 30_000,
    projects: [
      // The HTTP suites once more with the functions run from their bundles (docs/local-runtime.md).
      // Listed first: its setup bundles while DynamoDB Local starts, which the source project
      // then shares. `--project source` leaves it out when iterating on one file.
      {
        test: { ...shared, name: 'bundled', include: httpSuites, globalSetup: ['test/support/bundles-setup.ts'] },
      },
      // Every test against the TypeScript sources.
      { test: { ...shared, name: 'source', include: ['test/**/*.test.ts'], globalSetup: ['test/support/global-setup.ts'] } },
      // The HTTP suites of A3 and A4 once more with SMS_PROVIDER=aws (issue #21): every SMS goes
      // through AWS End User Messaging, to the embedded emulator (test/area-a-sms/support/sms-network.ts).
      {
        test: {
          ...shared,
          name: 'aws-sms',
          include: smsSuites,
          env: { SMS_PROVIDER: 'aws' },
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
