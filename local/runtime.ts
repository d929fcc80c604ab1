import { randomUUID } from 'node:crypto';
import { logger } from '../shared/observability/logger';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { allRoutes, type QueueName, type RouteDefinition } from '../shared/topology/routes';
import { queueDefinitions } from '../shared/topology/queues';
import { streamConsumers } from '../shared/topology/streams';
import { topicConsumers } from '../shared/topology/topics';
import { awsSmsMount, createAwsSmsEmulator, demoAwsSms, type AwsSmsEmulator } from './aws-sms-emulator';
import { buildFunctionBundles, type FunctionBundles } from './bundle-build';
import { createDeveloperConsole } from './console';
import { consolePath as developerConsolePath } from './console/page';
import { createTable } from './create-table';
import { demoSecrets, localAwsEnv } from './demo-config';
import { startDynamoDbLocal } from './dynamodb-local';
import { startGateway, type GatewayAnswerRecord, type GatewayOptions } from './gateway';
import { demoCredentials } from './demo-credentials';
import { referenceMounts, type ReferenceCredentials } from './reference-page';
import { createStripeEmulator, type StripeEmulator } from './stripe-emulator';
import { useBundledHandlers } from './handler-loader';
import { startPollers } from './pollers';
import { startStreamReader, type StreamReader } from './stream-reader';
import { startLocalTopics, type LocalTopics } from './topics';
import { simChangesHandler, simChangesMount } from './sim-changes';
import { feedHandler, feedMount } from './feed-endpoint';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { recoverStoppedWorkers, type RedriveResult } from './redrive';
import { loadSeedDocument, type SeedLoadResult } from './seed/load';
import { simulatorSettingsFromEnv, startSmsSimulator } from './sms-simulator';
import { createQueues, startSqsLocal, type QueueUrls, type SqsLocal } from './sqs-local';
import { customerReceiptSecrets, subscriptionSecrets } from './inbox-secrets';
import { startWebhookInbox, type WebhookInbox } from './webhook-inbox';

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
   * Lines for the person at the terminal (`npm start` prints them): with the Stripe emulator,
   * each checkout created gets its ready pay command (`npm run pay -- <order_id>`).
   */
  announce?: (line: string) => void;
}

/** The routes that create a checkout: those that hold the Stripe secret key. */
const checkoutRouteNames = new Set(allRoutes().filter((route) => route.access.secrets?.includes('STRIPE_SECRET_KEY')).map((route) => route.name));

/** Where `npm run pay` looks when given no --base (local/pay-cli.ts, with LOCAL_API_URL and PORT unset). */
const payDefaultBase = 'http://127.0.0.1:3000';

/**
 * The line `npm start` prints for a checkout just created on the Stripe emulator: the pay
 * command ready to paste (with `--base` unless the API is where `npm run pay` looks by
 * default), and the console's Pay button. Undefined for any other answer.
 */
export const checkoutPayLine = (answer: GatewayAnswerRecord, baseUrl: string, consoleUrl: string): string | undefined => {
  if (answer.stage !== 'route' || answer.status !== 201 || !checkoutRouteNames.has(answer.route ?? '')) return undefined;
  let orderId: unknown;
  try {
    orderId = (JSON.parse(answer.body.toString('utf8')) as { order_id?: unknown }).order_id;
  } catch {
    return undefined;
  }
  if (typeof orderId !== 'string') return undefined;
  const base = baseUrl === payDefaultBase ? '' : ` --base ${baseUrl}`;
  return `Checkout ${orderId} awaits payment: npm run pay -- ${orderId}${base}   (or Pay on ${consoleUrl}#order-${orderId})`;
};

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
  /** Base URL of the SMS network simulator. */
  smsSimulatorUrl: string;
  /**
   * The embedded AWS End User Messaging SMS emulator, served under `{base}/_local/aws-sms/`
   * (local/aws-sms-emulator.ts): the handlers' AWS_SMS_ENDPOINT unless one is given.
   */
  awsSms: AwsSmsEmulator;
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

/** Environment variables the runtime unsets unless given, so an absent value means "not configured". */
const optionalVariables = ['STRIPE_SECRET_KEY', 'STRIPE_API_BASE'];

/**
 * Starts the whole service locally: DynamoDB Local and the SQS emulator (or the given ones),
 * the table and queues as the stack defines them, the seed, the SMS network simulator, the
 * API gateway and the queue pollers. Handlers run in this process and read their
 * configuration (shared/config/function-config.ts) from process.env once, when first imported;
 * this sets every variable they require explicitly (the only place where a value for the
 * table, region or queues is chosen for them), so one process hosts one runtime's handler
 * configuration (handler modules are imported once per process: a second runtime in the same
 * process is not seen by a handler already loaded).
 */
export const startLocalRuntime = async (options: LocalRuntimeOptions = {}): Promise<LocalRuntime> => {
  const cleanups: Array<() => Promise<void> | void> = [];
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        logger.error('local runtime stop failed', { component: 'local-runtime', error: String(error) });
      }
    }
  };
  try {
    const credentials = { accessKeyId: localAwsEnv.AWS_ACCESS_KEY_ID, secretAccessKey: localAwsEnv.AWS_SECRET_ACCESS_KEY };
    const region = localAwsEnv.AWS_REGION;

    const startDynamo = async (): Promise<string> => {
      if (options.dynamodbEndpoint) return options.dynamodbEndpoint;
      if (options.persistDir) mkdirSync(options.persistDir, { recursive: true });
      const dynamodb = await startDynamoDbLocal({ persistDir: options.persistDir });
      cleanups.push(() => dynamodb.stop());
      return dynamodb.endpoint;
    };
    // With persistDir the SQS emulator keeps its queues in DIR/sqs (SQLite), beside DynamoDB
    // Local's data, so what was queued or in flight survives a kill.
    let sqsLocal: SqsLocal | undefined;
    const startSqs = async (): Promise<string> => {
      if (options.sqsEndpoint) return options.sqsEndpoint;
      const sqs = await startSqsLocal({ dataDir: options.persistDir ? join(options.persistDir, 'sqs') : undefined });
      sqsLocal = sqs;
      cleanups.push(() => sqs.stop());
      return sqs.endpoint;
    };
    const bundling = options.bundled === true ? buildFunctionBundles() : Promise.resolve(options.bundled || undefined);
    bundling.catch(() => undefined);
    const [dynamodbEndpoint, sqsEndpoint] = await Promise.all([startDynamo(), startSqs()]);
    const bundles = await bundling;
    if (bundles) {
      const sourceMaps = process.sourceMapsEnabled ?? false;
      process.setSourceMapsEnabled(true);
      useBundledHandlers(bundles.files);
      cleanups.push(() => {
        useBundledHandlers(undefined);
        process.setSourceMapsEnabled(sourceMaps);
      });
    }

    const dynamo = new DynamoDBClient({ endpoint: dynamodbEndpoint, region, credentials });
    const sqs = new SQSClient({ endpoint: sqsEndpoint, region, credentials });
    const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
    cleanups.push(() => {
      dynamo.destroy();
      sqs.destroy();
    });

    const tableName = options.tableName ?? (options.persistDir ? 'sim-service' : `sim-service-${randomUUID().slice(0, 8)}`);
    // Persisted queues keep their names from run to run (the folder is this runtime's alone).
    const queuePrefix = options.queuePrefix ?? (options.persistDir && sqsLocal ? '' : `l${randomUUID().slice(0, 8)}-`);
    const created = await createTable(dynamo, tableName);
    const seeded =
      created && options.seed !== undefined ? await loadSeedDocument(options.seed, { client: dynamo, tableName }) : undefined;
    if (created && options.preload) await options.preload({ client: dynamo, tableName });
    const queues = await createQueues(sqs, queuePrefix);
    // The SNS topics (issue #21): their consumers are invoked as a topic subscription invokes
    // them, with the same retries and a dead-letter queue each.
    const topics = await startLocalTopics({
      definitions: topicConsumers,
      sqs,
      queuePrefix,
      retryDelayMs: options.retryDelaySeconds === 0 ? 100 : 1000,
      quiet: options.quiet,
    });
    cleanups.push(() => topics.stop());

    const given = options.env ?? {};
    // The outbox: EMAIL_OUTBOX_DIR; else, with persistDir, `<persistDir>/outbox` (kept with the
    // data: the exactly-once rules look effects up there after a restart); else a fresh folder
    // of this instance's own, removed when it stops.
    let outboxDir = given.EMAIL_OUTBOX_DIR || (options.persistDir ? join(options.persistDir, 'outbox') : undefined);
    if (!outboxDir) {
      const temporary = mkdtempSync(join(tmpdir(), 'sim-service-outbox-'));
      cleanups.push(() => rmSync(temporary, { recursive: true, force: true }));
      outboxDir = temporary;
    } else {
      mkdirSync(outboxDir, { recursive: true });
    }
    const secrets = { ...demoSecrets, ...given };
    const simulator = await startSmsSimulator({
      token: secrets.SMS_PROVIDER_TOKEN,
      receiptSecret: secrets.SMS_RECEIPT_SECRET,
      ...simulatorSettingsFromEnv({ ...process.env, ...given }),
      quiet: options.quiet,
    });
    cleanups.push(() => simulator.stop());
    const awsSms = createAwsSmsEmulator({
      publish: (topic, message) => topics.publish(topic, message),
      ...simulatorSettingsFromEnv({ ...process.env, ...given }),
      originationIdentity: given.SMS_ORIGINATION_IDENTITY ?? demoAwsSms.originationIdentity,
      configurationSet: given.SMS_CONFIGURATION_SET ?? demoAwsSms.configurationSet,
      quiet: options.quiet,
    });
    cleanups.push(() => awsSms.stop());

    const stripeKey = given.STRIPE_SECRET_KEY ?? '';
    let webhookUrl: string | undefined;
    let webhookSecret: string | undefined;
    const emulator =
      stripeKey === ''
        ? createStripeEmulator({ webhookUrl: () => webhookUrl, webhookSecret: () => webhookSecret })
        : undefined;
    // The developer console at {base}/_local/ (local/console), over this runtime's parts; the
    // inbox and the base URL exist only once the gateway runs, hence the late bindings.
    let inbox: WebhookInbox | undefined;
    let baseUrl = '';
    let referenceCredentials: ReferenceCredentials | undefined;
    const developerConsole = createDeveloperConsole({
      orders: { db: documents, tableName },
      outboxDir,
      smsMessages: () => simulator.messages(),
      awsSmsMessages: () => awsSms.messages(),
      inboxDeliveries: () => inbox?.deliveries() ?? [],
      inboxUrl: () => inbox?.url,
      stripe: () => emulator,
      baseUrl: () => baseUrl,
    });
    const gateway = await startGateway({
      port: options.port,
      quiet: options.quiet,
      localMounts: {
        [developerConsolePath]: developerConsole.handle,
        ...referenceMounts(() => referenceCredentials),
        ...(emulator ? { '/_local/stripe': emulator.handle } : {}),
        // Issue #21: AWS End User Messaging SMS (POST / the API, /events and /inbound into the topics).
        [awsSmsMount]: awsSms.handle,
        // Issue #15: change a SIM's status and usage, so the table's stream makes lifecycle events.
        [simChangesMount]: simChangesHandler(() => ({ db: documents, tableName })),
        // Issue #20: the operator feed, queued for apply-operator-feed as the deployed queue is.
        [feedMount]: feedHandler(() => ({ sqs, queueUrl: queues['operator-feed'].url, db: documents, tableName })),
      },
      ...(options.onAnswer || (options.announce && emulator)
        ? {
            onAnswer: (answer: GatewayAnswerRecord) => {
              options.onAnswer?.(answer);
              const line = options.announce && emulator ? checkoutPayLine(answer, baseUrl, `${baseUrl}${developerConsolePath}/`) : undefined;
              if (line) options.announce!(line);
            },
          }
        : {}),
      ...(options.benchRoutes?.length ? { routes: [...allRoutes(), ...options.benchRoutes] } : {}),
    });
    cleanups.push(() => gateway.stop());
    baseUrl = gateway.baseUrl;
    if (emulator) {
      webhookUrl = `${gateway.baseUrl}/api/v1/webhooks/stripe`;
      // Stopped before the gateway: no retry is sent to a closing server.
      cleanups.push(() => emulator.stop());
    }

    // The webhook inbox: its own origin alone is exempt from the public-host rule, and its
    // certificate is trusted by the handlers' outbound calls beside any NODE_EXTRA_CA_CERTS given.
    inbox = await startWebhookInbox({
      secrets: async () => [
        ...(env.CALLBACK_SIGNING_SECRET ? await customerReceiptSecrets({ db: documents, tableName }, env.CALLBACK_SIGNING_SECRET) : []),
        ...(env.WEBHOOK_SECRETS_KEY ? await subscriptionSecrets({ db: documents, tableName }, env.WEBHOOK_SECRETS_KEY) : []),
      ],
    });
    const runningInbox = inbox;
    cleanups.push(() => runningInbox.stop());
    const trustFolder = mkdtempSync(join(tmpdir(), 'sim-service-trust-'));
    cleanups.push(() => rmSync(trustFolder, { recursive: true, force: true }));
    const trustedCaFile = join(trustFolder, 'trusted-ca.pem');
    const extraCa = given.NODE_EXTRA_CA_CERTS ?? process.env.NODE_EXTRA_CA_CERTS;
    writeFileSync(trustedCaFile, [inbox.certificate, ...(extraCa ? [readFileSync(extraCa, 'utf8')] : [])].join('\n'));

    const env: Record<string, string> = {
      ...localAwsEnv,
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: dynamodbEndpoint,
      SQS_ENDPOINT: sqsEndpoint,
      ...Object.fromEntries(queueDefinitions.map((queue) => [queue.urlVariable, queues[queue.name].url])),
      ...demoSecrets,
      SMS_PROVIDER_URL: simulator.url,
      PUBLIC_BASE_URL: gateway.baseUrl,
      // SMS_PROVIDER=aws: the embedded emulator unless AWS_SMS_ENDPOINT is given (LOCAL-CONTRACT.md).
      SMS_ORIGINATION_IDENTITY: demoAwsSms.originationIdentity,
      SMS_CONFIGURATION_SET: demoAwsSms.configurationSet,
      AWS_SMS_ENDPOINT: `${gateway.baseUrl}${awsSmsMount}`,
      ...given,
      CALLBACK_ALLOWED_HOSTS: [given.CALLBACK_ALLOWED_HOSTS, inbox.origin].filter(Boolean).join(','),
      NODE_EXTRA_CA_CERTS: trustedCaFile,
      EMAIL_OUTBOX_DIR: outboxDir,
    };
    webhookSecret = env.STRIPE_WEBHOOK_SECRET;
    if (options.prefillReferenceCredentials) {
      const demo = demoCredentials(options.seed);
      referenceCredentials = {
        bearerToken: demo.bearerToken,
        apiKey: demo.apiKey,
        ...(given.STOREFRONT_SERVICE_TOKEN === undefined ? { storefrontToken: env.STOREFRONT_SERVICE_TOKEN } : {}),
      };
    }
    let payments: LocalPayments;
    if (emulator) {
      payments = { mode: 'emulator', emulator, apiBase: `${gateway.baseUrl}/_local/stripe` };
      env.STRIPE_SECRET_KEY = emulator.secretKey;
      env.STRIPE_API_BASE = payments.apiBase;
    } else if (stripeKey === 'none') {
      payments = { mode: 'none' };
      delete env.STRIPE_SECRET_KEY;
      delete env.STRIPE_API_BASE;
    } else {
      payments = { mode: 'configured', apiBase: env.STRIPE_API_BASE || undefined };
    }
    const previous = new Map<string, string | undefined>();
    for (const name of [...Object.keys(env), ...optionalVariables]) previous.set(name, process.env[name]);
    cleanups.push(() => {
      for (const [name, value] of previous) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    });
    for (const name of optionalVariables) delete process.env[name];
    Object.assign(process.env, env);

    // A killed runtime's workers: their leases and in-flight messages are given back on the
    // persisted table and queues before any poller runs (local/redrive.ts).
    const ownsPersistedState = options.persistDir !== undefined && options.dynamodbEndpoint === undefined && sqsLocal !== undefined && !created;
    const redriven = ownsPersistedState
      ? await recoverStoppedWorkers({
          dynamo,
          tableName,
          inFlightReleased: sqsLocal!.inFlightReleased,
        })
      : undefined;
    if (redriven && !options.quiet) {
      logger.info('work of a stopped runtime given back', { component: 'local-runtime', ...redriven });
    }

    const pollers = startPollers({
      client: sqs,
      targets: queueDefinitions.map((queue) => ({ queue, url: queues[queue.name].url })),
      retryDelaySeconds: options.retryDelaySeconds,
      quiet: options.quiet,
    });
    cleanups.push(() => pollers.stop());

    // The table's stream, read as Lambda's event source mapping reads it, into the same consumers.
    const streams = new DynamoDBStreamsClient({ endpoint: dynamodbEndpoint, region, credentials });
    const streamReader = startStreamReader({ dynamo, streams, tableName, consumers: streamConsumers, quiet: options.quiet });
    cleanups.push(async () => {
      await streamReader.stop();
      streams.destroy();
    });
    // A change made once this returns reaches the stream's consumers (the reader starts at the
    // stream's latest record).
    await streamReader.ready;

    return {
      baseUrl: gateway.baseUrl,
      tableName,
      queues,
      smsSimulatorUrl: simulator.url,
      awsSms,
      topics,
      inbox,
      consoleUrl: `${gateway.baseUrl}${developerConsolePath}/`,
      dynamodbEndpoint,
      sqsEndpoint,
      seeded,
      redriven,
      bundles,
      env,
      payments,
      stream: { hold: streamReader.hold, release: streamReader.release },
      stop: cleanUp,
    };
  } catch (error) {
    await cleanUp();
    throw error;
  }
};
