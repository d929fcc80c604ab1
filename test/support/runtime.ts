import { dynamodbEndpoint } from './dynamodb-lease';
import { afterAll, beforeAll, inject } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { recordAnswer } from './contract';
import { lateBound } from './late-bound';

/** Options of startTestRuntime. */
export interface TestRuntimeOptions {
  /** A seed document (LOCAL-CONTRACT.md format) loaded into the runtime's fresh table. */
  seed?: unknown;
  /** Extra environment for the handlers (e.g. STRIPE_SECRET_KEY, STRIPE_API_BASE, SMS_PROVIDER_URL). */
  env?: Record<string, string>;
  /** Write the gateway's and the pollers' lines too (default: quiet). */
  quiet?: boolean;
  /** Receives the lines the runtime has for the person at the terminal (startLocalRuntime's `announce`). */
  announce?: (line: string) => void;
  /** Fill the reference page's authentication with the seed's demo credentials (startLocalRuntime's option). */
  prefillReferenceCredentials?: boolean;
  /** E-mail through SES (a stand-in named in `env`) instead of the outbox (startLocalRuntime's option). */
  emailThroughSes?: boolean;
}

/**
 * Starts the local runtime for a test file: the run's shared DynamoDB Local and SQS emulator,
 * a fresh table and queue prefix, the gateway on a free port, the SMS simulator and the
 * pollers (failed messages are retried at once), all quiet. Call `stop()` in afterAll, or let
 * useTestRuntime (below) start and stop it. Handlers read their configuration from process.env
 * once, when first imported, so run one runtime per test file (docs/local-runtime.md, Tests).
 * In the bundled project (vitest.config.ts) the handlers are the stack's esbuild bundles
 * built by test/support/bundles-setup.ts; elsewhere the TypeScript sources. Every answer of its
 * gateway is checked against docs/openapi.json: one the document does not describe fails the
 * test that provoked it (./contract.ts).
 */
export const startTestRuntime = (options: TestRuntimeOptions = {}): Promise<LocalRuntime> =>
  startLocalRuntime({
    dynamodbEndpoint: dynamodbEndpoint(),
    sqsEndpoint: inject('sqsEndpoint'),
    seed: options.seed,
    env: options.env,
    retryDelaySeconds: 0,
    quiet: options.quiet ?? true,
    ...(options.announce ? { announce: options.announce } : {}),
    ...(options.prefillReferenceCredentials ? { prefillReferenceCredentials: true } : {}),
    ...(options.emailThroughSes ? { emailThroughSes: true } : {}),
    bundled: inject('bundles'),
    // Every answer is checked against docs/openapi.json (./contract.ts, ./contract-setup.ts).
    onAnswer: recordAnswer,
  });

/** What useTestRuntime does around the runtime it starts. */
export interface TestRuntimeHooks {
  /** Run in beforeAll once the runtime has started, with it (e.g. to point a switch at it). */
  prepare?: (runtime: LocalRuntime) => Promise<void> | void;
  /** Run in afterAll after the runtime has stopped: stops what the options started, closes clients. */
  stopAfter?: () => Promise<void> | void;
}

/**
 * A test file's runtime fixture: in beforeAll it takes `options` (when a function, it runs there
 * first, so it can start what the options name, such as a receiver whose URL goes in `env`),
 * starts the runtime with them (startTestRuntime) and runs `prepare`; in afterAll it stops the
 * runtime, then runs `stopAfter` (also when the start failed). The runtime it returns can be
 * named at the top level of the file: it is bound once started, and reading it before throws.
 * Call it at the top level of the file, or in the describe whose tests use the runtime.
 */
export const useTestRuntime = (
  options: TestRuntimeOptions | (() => TestRuntimeOptions | Promise<TestRuntimeOptions>) = {},
  hooks: TestRuntimeHooks = {},
): LocalRuntime => {
  const runtime = lateBound<LocalRuntime>('the test runtime');
  let started: LocalRuntime | undefined;
  beforeAll(async () => {
    started = await startTestRuntime(typeof options === 'function' ? await options() : options);
    runtime.bind(started);
    await hooks.prepare?.(started);
  });
  afterAll(async () => {
    await started?.stop();
    await hooks.stopAfter?.();
  });
  return runtime.value;
};
