import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // One DynamoDB Local and one SQS emulator per test run; each test file makes its own table
    // and queues in them (test/support/resources.ts).
    globalSetup: ['test/support/global-setup.ts'],
    include: ['test/**/*.test.ts'],
    // vitest's own summary, then one plain `N passed, N failed` line for CI.
    reporters: ['default', './test/support/plain-summary-reporter.ts'],
    // Each file in its own process: handler modules read process.env, which must not leak.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
  },
});
