/** The shapes of the local runtime: what startLocalRuntime (local/runtime.ts) takes and what it gives back. */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { QueueName, RouteDefinition } from '../shared/topology/routes';
import type { AwsSmsEmulator } from './aws-sms-emulator';
import type { FunctionBundles } from './bundle-build';
import type { GatewayOptions } from './gateway';
import type { RedriveResult } from './redrive';
import type { SeedLoadResult } from './seed/load';
import type { QueueUrls } from './sqs-local';
import type { StreamReader } from './stream-reader';
import type { StreamFailureQueueUrls } from './stream-failure-queues';
import type { StripeEmulator } from './stripe-emulator';
import type { LocalTopics } from './topics';
import type { WebhookInbox } from './webhook-inbox';
import type { OperatorEmulator } from './operator-emulator';
import type { ScheduleRunner } from './schedule-runner';

/** Options of startLocalRuntime. */
export interface LocalRuntimeOptions {
  /** Port of the local API; 0 or absent picks a free one. */
  port?: number;
  /** A seed document (LOCAL-CONTRACT.md format), loaded when the table is created by this call. */
  seed?: unknown;
  /** Extra environment for the handlers; overrides every default below (e.g. STRIPE_SECRET_KEY). */
  env?: Record<string, string>;
  /** Use this DynamoDB Local instead of starting one (tests). */
  dynamodbEndpoint?: string;
  /** Use this SQS emulator instead of starting one (tests). */
  sqsEndpoint?: string;
  /** Table name; default a fresh unique one, or `sim-service` with persistDir. */
  tableName?: string;
  /** Prefix of the queue names; default a unique one. */
  queuePrefix?: string;
  /** DynamoDB Local keeps its data in this folder (-dbPath), the SQS emulator its queues in DIR/sqs; the seed is loaded only into a new table. */
  persistDir?: string;
  /** Seconds before a message its consumer failed is received again (default 1). */
  retryDelaySeconds?: number;
  /** No per-request / per-batch log lines. */
  quiet?: boolean;
  /**
   * Run the functions from the esbuild bundles the stack deploys (local/bundle-build.ts)
   * instead of the TypeScript sources: `true` builds them now (in parallel with starting
   * DynamoDB Local), or pass bundles already built by buildFunctionBundles (the test setup).
   * Source maps are enabled in the process for stack traces (the deployed functions run without
   * them and their traces are decoded afterwards: docs/deploy.md).
   */
  bundled?: boolean | FunctionBundles;
  /**
   * Routes the gateway serves beside the route table's: the benchmark's baselines only
   * (bench/baselines/one-call-handler.ts). `npm start` and the tests never pass any.
   */
  benchRoutes?: RouteDefinition[];
  /** Sees every answer of the gateway (startGateway's onAnswer): the tests check each against docs/openapi.json. */
  onAnswer?: GatewayOptions['onAnswer'];
  /**
   * Writes data into a new table after the seed and before the pollers and the stream reader
   * start, so that no consumer sees it as changes: the benchmark's fleets, written in bulk
   * with their list index (bench/lib/scale-fleet.ts). `npm start` and the tests pass none.
   */
  preload?: (target: { client: DynamoDBClient; tableName: string }) => Promise<void>;
  /**
   * Fill the API reference page's authentication (`/_local/docs`) with the seed's demo
   * credentials (local/demo-credentials.ts) and the storefront token when it is the demo one:
   * `npm start` with the demo seed, whose banner prints the same values whole.
   */
  prefillReferenceCredentials?: boolean;
  /**
   * E-mail through Amazon SES as deployed instead of into the outbox: the handlers get no
   * EMAIL_OUTBOX_DIR, so give them EMAIL_FROM (and AWS_ENDPOINT_URL_SESV2 for a stand-in) in
   * `env`. The permission test only (test/infra/permissions.test.ts); `npm start` never sets it.
   */
  emailThroughSes?: boolean;
  /**
   * Lines for the person at the terminal (`npm start` prints them): with the Stripe emulator,
   * each checkout created gets its ready pay command (`npm run pay -- <order_id>`).
   */
  announce?: (line: string) => void;
}

/**
 * How the runtime takes payments, from STRIPE_SECRET_KEY (LOCAL-CONTRACT.md): unset, the
 * embedded emulator under `{base}/_local/stripe`; `none`, no payment processor (checkouts
 * answer 503 `stripe_not_configured`); any other value, that key against STRIPE_API_BASE or Stripe.
 */
export type LocalPayments =
  | { mode: 'emulator'; emulator: StripeEmulator; apiBase: string }
  | { mode: 'none' }
  | { mode: 'configured'; apiBase?: string };

/** A running local runtime. */
export interface LocalRuntime {
  /** Base URL of the local API, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  tableName: string;
  queues: Record<QueueName, QueueUrls>;
  /** The failure queue URL of each table-stream consumer, by consumer name (local/stream-failure-queues.ts). */
  streamFailureQueues: StreamFailureQueueUrls;
  /** Base URL of the SMS network simulator. */
  smsSimulatorUrl: string;
  /**
   * The embedded AWS End User Messaging SMS emulator, served under `{base}/_local/aws-sms/`
   * (local/aws-sms-emulator.ts): the handlers' AWS_SMS_ENDPOINT unless one is given.
   */
  awsSms: AwsSmsEmulator;
  /**
   * The operator emulator under `{base}/_local/operator/` (local/operator-emulator.ts, issue #33):
   * the handlers' OPERATOR_PROVISIONING_URL unless one is given.
   */
  operator: OperatorEmulator;
  /** The scheduled functions (shared/topology/schedules.ts), run every minute; `runNow()` for tests. */
  schedules: ScheduleRunner;
  /** The SNS topics (local/topics.ts): their consumers' dead-letter queues, and `settled()` for tests. */
  topics: LocalTopics;
  /** The HTTPS webhook inbox (local/webhook-inbox.ts): a callback_url that works with no setup. */
  inbox: WebhookInbox;
  /** The developer console's page (local/console): `{base}/_local/`. */
  consoleUrl: string;
  /** Endpoints of the DynamoDB Local and SQS emulator in use. */
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  /** What the seed load wrote (undefined when no seed was loaded). */
  seeded?: SeedLoadResult;
  /** With persistDir and an existing table: the in-flight messages and leases of a stopped runtime given back (local/redrive.ts). */
  redriven?: RedriveResult;
  /** The bundles the functions run from (undefined: the TypeScript sources). */
  bundles?: FunctionBundles;
  /** The environment handed to the handlers (also set on process.env while running). */
  env: Record<string, string>;
  /** The payment processor in use (STRIPE_SECRET_KEY). */
  payments: LocalPayments;
  /** The reader of the table's stream: hold and release it (the benchmark's burst of changes). */
  stream: Pick<StreamReader, 'hold' | 'release'>;
  /** Stops pollers, servers and whatever this call started (DynamoDB Local's JVM included). */
  stop(): Promise<void>;
}
