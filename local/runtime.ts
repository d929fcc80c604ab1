import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { allRoutes } from '../shared/topology/routes';
import { topicConsumers } from '../shared/topology/topics';
import { reserveHandlerEnvironment } from './process-environment';
import { checkoutPayLine } from './checkout-pay-line';
import { createDeveloperConsole } from './console';
import { consolePath as developerConsolePath } from './console/page';
import { createTable } from './create-table';
import { localAwsEnv } from './demo-config';
import { demoCredentials } from './demo-credentials';
import { startGateway, type GatewayAnswerRecord } from './gateway';
import { handlerEnvironment } from './handler-environment';
import { customerReceiptSecrets, subscriptionSecrets } from './inbox-secrets';
import type { ReferenceCredentials } from './reference-page';
import { runHandlersFromBundles, startBundling } from './runtime-bundles';
import { runtimeCleanups } from './runtime-cleanups';
import { startConsumers } from './runtime-consumers';
import { runtimeMounts } from './runtime-mounts';
import { runtimeOutbox } from './runtime-outbox';
import { redrivePersistedRuntime } from './runtime-redrive';
import { startSmsStandIns } from './runtime-sms';
import { startOrReuseStores } from './runtime-stores';
import type { LocalRuntime, LocalRuntimeOptions } from './runtime-types';
import { loadSeedDocument } from './seed/load';
import { createQueues } from './sqs-local';
import { createStreamFailureQueues, readStreamFailures } from './stream-failure-queues';
import { streamConsumers } from '../shared/topology/streams';
import { createStripeEmulator } from './stripe-emulator';
import { startLocalTopics } from './topics';
import { writeTrustedCaFile } from './trusted-ca-file';
import { startWebhookInbox, type WebhookInbox } from './webhook-inbox';
import { queueFeedText } from './feed-endpoint';
import { createOperatorEmulator, operatorSettingsFromEnv } from './operator-emulator';
import { startSchedules } from './schedule-runner';
import { schedules } from '../shared/topology/schedules';

export type { LocalRuntime, LocalRuntimeOptions } from './runtime-types';

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
  const cleanups = runtimeCleanups();
  try {
    const credentials = { accessKeyId: localAwsEnv.AWS_ACCESS_KEY_ID, secretAccessKey: localAwsEnv.AWS_SECRET_ACCESS_KEY };
    const region = localAwsEnv.AWS_REGION;

    const bundling = startBundling(options.bundled);
    const { dynamodbEndpoint, sqsEndpoint, sqsLocal } = await startOrReuseStores(options, cleanups);
    const bundles = await bundling;
    if (bundles) runHandlersFromBundles(bundles, cleanups);

    const dynamo = new DynamoDBClient({ endpoint: dynamodbEndpoint, region, credentials });
    const sqs = new SQSClient({ endpoint: sqsEndpoint, region, credentials });
    const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
    cleanups.add(() => {
      dynamo.destroy();
      sqs.destroy();
    });

    const tableName = options.tableName ?? (options.persistDir ? 'sim-service' : `sim-service-${randomUUID().slice(0, 8)}`);
    // Persisted queues keep their names from run to run (the folder is this runtime's alone).
    const queuePrefix = options.queuePrefix ?? (options.persistDir && sqsLocal ? '' : `l${randomUUID().slice(0, 8)}-`);
    const created = await createTable(dynamo, tableName);
    const seeded =
      created && options.seed !== undefined ? await loadSeedDocument(options.seed, { client: dynamo, tableName }, { newTable: true }) : undefined;
    if (created && options.preload) await options.preload({ client: dynamo, tableName });
    const queues = await createQueues(sqs, queuePrefix);
    // The stream consumers' failure queues (issue #31): where they set aside what they cannot process.
    const streamFailureQueues = await createStreamFailureQueues(sqs, streamConsumers, queuePrefix);
    // The SNS topics (issue #21): their consumers are invoked as a topic subscription invokes
    // them, with the same retries and a dead-letter queue each.
    const topics = await startLocalTopics({
      definitions: topicConsumers,
      sqs,
      queuePrefix,
      retryDelayMs: options.retryDelaySeconds === 0 ? 100 : 1000,
      quiet: options.quiet,
    });
    cleanups.add(() => topics.stop());

    const given = options.env ?? {};
    const outboxDir = runtimeOutbox(given, options.persistDir, cleanups);
    const { simulator, awsSms } = await startSmsStandIns(given, topics, options.quiet, cleanups);

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
      streamFailures: () => readStreamFailures(sqsEndpoint, streamFailureQueues),
    });
    // The operator emulator (issue #33): its signing secret is the handlers' (known once their environment is).
    let operatorSecret: string | undefined;
    const operator = createOperatorEmulator({
      secret: () => operatorSecret,
      sendFeed: async (line) => {
        await queueFeedText({ sqs, queueUrl: queues['operator-feed'].url, db: documents, tableName }, line);
      },
      ...operatorSettingsFromEnv({ ...process.env, ...given }),
      quiet: options.quiet,
    });
    cleanups.add(() => operator.stop());
    // Put back after the gateway has stopped (cleanups run last first).
    const processEnvironment = reserveHandlerEnvironment(cleanups);
    const gateway = await startGateway({
      port: options.port,
      quiet: options.quiet,
      localMounts: runtimeMounts({
        developerConsole,
        referenceCredentials: () => referenceCredentials,
        emulator,
        awsSms,
        operator,
        db: documents,
        tableName,
        sqs,
        queues,
        region,
        dynamodbEndpoint,
        sqsEndpoint,
      }),
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
    cleanups.add(() => gateway.stop());
    baseUrl = gateway.baseUrl;
    if (emulator) {
      webhookUrl = `${gateway.baseUrl}/api/v1/webhooks/stripe`;
      // Stopped before the gateway: no retry is sent to a closing server.
      cleanups.add(() => emulator.stop());
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
    cleanups.add(() => runningInbox.stop());
    const trustedCaFile = writeTrustedCaFile(inbox.certificate, given.NODE_EXTRA_CA_CERTS ?? process.env.NODE_EXTRA_CA_CERTS, cleanups);

    const { env, payments } = handlerEnvironment({
      tableName,
      dynamodbEndpoint,
      sqsEndpoint,
      queues,
      streamFailureQueues,
      smsSimulatorUrl: simulator.url,
      baseUrl: gateway.baseUrl,
      inboxOrigin: inbox.origin,
      trustedCaFile,
      ...(options.emailThroughSes ? {} : { outboxDir }),
      emulator,
      given,
    });
    webhookSecret = env.STRIPE_WEBHOOK_SECRET;
    operatorSecret = env.OPERATOR_PROVISIONING_SECRET;
    if (options.prefillReferenceCredentials) {
      const demo = demoCredentials(options.seed);
      referenceCredentials = {
        bearerToken: demo.bearerToken,
        apiKey: demo.apiKey,
        ...(given.STOREFRONT_SERVICE_TOKEN === undefined ? { storefrontToken: env.STOREFRONT_SERVICE_TOKEN } : {}),
      };
    }
    processEnvironment.apply(env);

    const redriven = await redrivePersistedRuntime({ options, sqsLocal, created, dynamo, tableName });
    const streamReader = await startConsumers(
      { sqs, queues, streamFailureQueues, dynamo, dynamodbEndpoint, tableName, retryDelaySeconds: options.retryDelaySeconds, quiet: options.quiet },
      cleanups,
    );
    // The scheduled functions (issue #33: the SIM actions' timeout), every minute.
    const scheduled = startSchedules(schedules);
    cleanups.add(() => scheduled.stop());

    return {
      baseUrl: gateway.baseUrl,
      tableName,
      queues,
      streamFailureQueues,
      smsSimulatorUrl: simulator.url,
      awsSms,
      operator,
      schedules: scheduled,
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
      stop: cleanups.runAll,
    };
  } catch (error) {
    await cleanups.runAll();
    throw error;
  }
};
