import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Annotations, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { Construct } from 'constructs';
import { queueDefinitions as allQueueDefinitions, type QueueDefinition } from '../shared/topology/queues';
import { allRoutes, type QueueName, type RouteDefinition, type SecretName } from '../shared/topology/routes';
import { streamConsumers as allStreamConsumers, type StreamConsumerDefinition } from '../shared/topology/streams';
import { topicConsumers as allTopicConsumers, type TopicConsumerDefinition, type TopicName } from '../shared/topology/topics';
import { schedules as allSchedules, type ScheduleDefinition } from '../shared/topology/schedules';
import { defaultServiceName, parseLogLevel } from '../shared/observability/logger';
import { defaultMetricsNamespace } from '../shared/observability/metrics';
import { OperationsAlarms } from './constructs/operations-alarms';
import type { OperationsDashboard } from './constructs/operations-dashboard';
import { OperationsNotifications } from './constructs/operations-notifications';
import { ServiceApi } from './constructs/service-api';
import type { ConsumerDeployment } from './constructs/consumer-function';
import { ServiceFunction, type ServiceResources } from './constructs/service-function';
import { ServiceSecrets } from './constructs/service-secrets';
import { ServiceTable } from './constructs/service-table';
import { StreamConsumer } from './constructs/stream-consumer';
import type { AwsSmsChannel } from './constructs/aws-sms';
import { TopicConsumer } from './constructs/topic-consumer';
import { WorkQueue } from './constructs/work-queue';
import { configureAwsSms } from './aws-sms-senders';
import { grantEmailSending } from './email-sending';
import { routeAndConsumerOwners } from './function-owners';
import { pascalCase } from './pascal-case';
import { watchService } from './service-monitoring';
import { addStackOutputs } from './stack-outputs';

/** The repository root: handler paths of the route table are relative to it. */
export const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Options of the service stack. */
export interface ServiceStackProps extends StackProps {
  /** Deployment stage, e.g. `dev` or `production`; also the API Gateway stage name. */
  stage: string;
  /** The HTTP routes; defaults to `allRoutes()` (tests pass their own). */
  routes?: RouteDefinition[];
  /** The work queues; defaults to `queueDefinitions`. */
  queues?: QueueDefinition[];
  /** The consumers of the table's stream; defaults to `streamConsumers`. */
  streamConsumers?: StreamConsumerDefinition[];
  /**
   * Base URL of the SMS provider's API (SMS_PROVIDER_URL), given to the functions that hold
   * SMS_PROVIDER_TOKEN; unset, sending SMS answers 503 `sms_not_configured`.
   */
  smsProviderUrl?: string;
  /**
   * Public base URL of the service (PUBLIC_BASE_URL, where the SMS provider posts receipts),
   * e.g. a custom domain; defaults to the execute-api URL of the stage.
   */
  publicBaseUrl?: string;
  /**
   * X-Ray tracing of the API stage (default on; every function is traced actively
   * regardless: infra/constructs/service-function.ts).
   */
  tracing?: boolean;
  /** E-mail address subscribed to the operations alarms topic (`-c alarmEmail=...`). */
  alarmEmail?: string;
  /** LOG_LEVEL of every function: DEBUG, INFO (default), WARN or ERROR. */
  logLevel?: string;
  /**
   * Sender address of the e-mails (EMAIL_FROM), given to the functions whose access says
   * `sendsEmail`; it must belong to a verified SES identity. Unset, those e-mails cannot be
   * sent: fulfilment fails its messages into the dead-letter queue (and synth warns).
   */
  emailFrom?: string;
  /** The verified SES identity the functions may send as; defaults to the domain of emailFrom. */
  emailIdentity?: string;
  /** E-mail address subscribed to the operations notifications topic. */
  operationsEmail?: string;
  /**
   * The SMS provider of the sending functions (SMS_PROVIDER): `http` (default, the provider
   * HTTP API at smsProviderUrl) or `aws` (AWS End User Messaging SMS: the configuration set, the
   * delivery events topic and its consumer; docs/deploy.md).
   */
  smsProvider?: 'http' | 'aws';
  /** With smsProvider aws: the origination identity (phone number ID, pool ID, sender ID or ARN) the SMS are sent from. */
  smsOriginationIdentity?: string;
  /** Two-way SMS: the inbound topic and its consumer (`-c smsTwoWay=true`). */
  smsTwoWay?: boolean;
  /** With smsTwoWay: the origination number's ID, whose two-way channel the stack points at the inbound topic. */
  smsPhoneNumberId?: string;
  /**
   * The IAM role or user (ARN) of the operator's systems: the only principal that may send to
   * the operator-feed queue (`-c feedPrincipalArn=...`; docs/feed.md). Unset, the queue takes
   * no message (and synth warns).
   */
  feedPrincipalArn?: string;
  /** The SNS topics and their consumers; defaults to `topicConsumers` (each deployed only with its feature). */
  topicConsumers?: TopicConsumerDefinition[];
  /** The scheduled functions; defaults to `schedules`. */
  schedules?: ScheduleDefinition[];
  /**
   * Base URL of the operator's provisioning API (OPERATOR_PROVISIONING_URL, issue #33;
   * docs/operator-provisioning-api.md), given to the functions whose access says
   * `operatorProvisioning` (`-c operatorProvisioningUrl=https://...`). Unset, a new SIM action
   * answers 503 operator_not_configured (and synth warns).
   */
  operatorProvisioningUrl?: string;
}

/**
 * The logging and metrics environment of every function (shared/config/function-config.ts
 * `observabilityVariables`): LOG_LEVEL, the `service` of every log line and metric (one per
 * stage, so that two stages in one account never mix their metrics) and the one namespace.
 */
export const observabilityEnvironment = (stage: string, logLevel = 'INFO'): Record<string, string> => ({
  LOG_LEVEL: parseLogLevel(logLevel),
  POWERTOOLS_SERVICE_NAME: `${defaultServiceName}-${stage}`,
  POWERTOOLS_METRICS_NAMESPACE: defaultMetricsNamespace,
});

/** Stage-wide API Gateway throttling; Area A's per-user limits are enforced in the functions. */
export const stageThrottling = { rateLimit: 50, burstLimit: 100 };

/** Default Lambda timeout and memory of a route. */
export const routeDefaults = { timeoutSeconds: 10, memoryMb: 1024 };

/** True for the stage that must never lose data. */
export const isProductionStage = (stage: string): boolean => stage === 'production';

/** Functions that submit SMS hold the provider's token; they also need its URL and our own. */
const sendsSms = (access: RouteDefinition['access']): boolean => access.secrets?.includes('SMS_PROVIDER_TOKEN') ?? false;

/**
 * The whole service: the single DynamoDB table, the work queues with their DLQs, consumers
 * and alarms, one Secrets Manager secret per secret name in use, one Lambda function per
 * route of the route table, and the REST API in front of them. Built generically from the
 * route table, the queue definitions and the table definition; nothing here names a route.
 * In production the table has deletion protection, and data (table, queues, secrets, logs)
 * is retained when the stack is deleted.
 */
export class ServiceStack extends Stack {
  readonly stage: string;
  readonly serviceTable: ServiceTable;
  readonly workQueues = new Map<QueueName, WorkQueue>();
  readonly secrets: ServiceSecrets;
  /** The function of each route, by route name. */
  readonly routeFunctions = new Map<string, ServiceFunction>();
  /** The consumer function of each queue, by queue name. */
  readonly consumerFunctions = new Map<QueueName, ServiceFunction>();
  /** The consumers of the table's stream, by name. */
  readonly streamConsumers = new Map<string, StreamConsumer>();
  /** The scheduled functions, by name (with their EventBridge rules). */
  readonly scheduledFunctions = new Map<string, ServiceFunction>();
  /** The SNS topics with their consumers, by topic (only those of the deployed features). */
  readonly topicConsumers = new Map<TopicName, TopicConsumer>();
  /** AWS End User Messaging SMS (with smsProvider aws): the configuration set and the two-way channel. */
  readonly awsSms?: AwsSmsChannel;
  readonly api: ServiceApi;
  readonly alarms: OperationsAlarms;
  readonly dashboard: OperationsDashboard;
  readonly notifications: OperationsNotifications;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const routes = props.routes ?? allRoutes();
    const queues = props.queues ?? allQueueDefinitions;
    const production = isProductionStage(props.stage);
    this.stage = props.stage;

    this.serviceTable = new ServiceTable(this, 'Data', { production });
    for (const definition of queues) {
      const senderArn = definition.sentByDeployPrincipal ? props.feedPrincipalArn : undefined;
      this.workQueues.set(definition.name, new WorkQueue(this, `Queue-${definition.name}`, { definition, production, ...(senderArn ? { senderArn } : {}) }));
    }
    const streams = props.streamConsumers ?? allStreamConsumers;
    const features = { awsSms: props.smsProvider === 'aws', smsTwoWay: props.smsTwoWay === true };
    const topics = (props.topicConsumers ?? allTopicConsumers).filter((definition) => features[definition.feature]);
    const scheduled = props.schedules ?? allSchedules;
    const secretNames: SecretName[] = [...routes, ...queues, ...streams, ...topics, ...scheduled].flatMap((owner) => owner.access.secrets ?? []);
    this.secrets = new ServiceSecrets(this, 'Secrets', { names: secretNames, production });

    const resources: ServiceResources = {
      table: this.serviceTable.table,
      tableLogicalId: this.getLogicalId(this.serviceTable.table.node.defaultChild as CfnTable),
      queues: this.workQueues,
      secrets: this.secrets,
    };
    const observability = observabilityEnvironment(props.stage, props.logLevel);
    const environmentFor = (access: RouteDefinition['access']): Record<string, string> => ({
      ...observability,
      ...(props.smsProviderUrl && sendsSms(access) ? { SMS_PROVIDER_URL: props.smsProviderUrl } : {}),
      ...(props.operatorProvisioningUrl && access.operatorProvisioning ? { OPERATOR_PROVISIONING_URL: props.operatorProvisioningUrl } : {}),
    });

    for (const route of routes) {
      if (this.routeFunctions.has(route.name)) throw new Error(`two routes are named ${route.name}`);
      this.routeFunctions.set(
        route.name,
        new ServiceFunction(this, `Route${pascalCase(route.name)}`, {
          name: route.name,
          projectRoot,
          handler: route.handler,
          access: route.access,
          timeoutSeconds: route.timeoutSeconds ?? routeDefaults.timeoutSeconds,
          memoryMb: route.memoryMb ?? routeDefaults.memoryMb,
          description: `${route.method} ${route.path} (${route.name})`,
          resources,
          production,
          environment: environmentFor(route.access),
        }),
      );
    }

    this.alarms = new OperationsAlarms(this, 'OperationsAlarms', { email: props.alarmEmail });
    for (const workQueue of this.workQueues.values()) {
      const { definition } = workQueue;
      const consumer = new ServiceFunction(this, `Consumer${pascalCase(definition.consumer.name)}`, {
        name: definition.consumer.name,
        projectRoot,
        handler: definition.consumer.handler,
        access: definition.access,
        timeoutSeconds: definition.consumerTimeoutSeconds,
        memoryMb: routeDefaults.memoryMb,
        description: `consumer of the ${definition.name} queue (${definition.consumer.name})`,
        resources,
        production,
        // A consumer that schedules its own retries changes the visibility of its queue's
        // messages (the event source already grants sqs:ChangeMessageVisibility): it needs the URL.
        environment: {
          ...environmentFor(definition.access),
          ...(definition.consumerSchedulesRetries ? { [definition.urlVariable]: workQueue.queue.queueUrl } : {}),
        },
      });
      consumer.function.addEventSource(
        new SqsEventSource(workQueue.queue, {
          batchSize: definition.batchSize,
          // Above 10 messages SQS requires a batching window.
          maxBatchingWindow: definition.batchSize > 10 ? Duration.seconds(1) : undefined,
          reportBatchItemFailures: true,
        }),
      );
      this.consumerFunctions.set(definition.name, consumer);
      this.alarms.watchDeadLetterQueue(workQueue);
      this.alarms.watchQueueAge(workQueue);
    }
    const consumerDeployment = (access: RouteDefinition['access']): ConsumerDeployment => ({
      projectRoot,
      resources,
      memoryMb: routeDefaults.memoryMb,
      production,
      environment: environmentFor(access),
    });
    for (const definition of streams) {
      const streamConsumer = new StreamConsumer(this, `Stream${pascalCase(definition.name)}`, {
        definition,
        ...consumerDeployment(definition.access),
      });
      this.streamConsumers.set(definition.name, streamConsumer);
      this.alarms.watchQueue(
        `${definition.name}-failures-not-empty`,
        streamConsumer.failureQueue,
        `Stream records the ${definition.name} consumer could not process: set aside at once (the message holds the record and the reason), or failed ${definition.retryAttempts + 1} times by an outage or the function itself (the message holds their positions: read them from the stream within 24 hours). Find the cause, then replay or repair them.`,
      );
    }

    for (const definition of scheduled) {
      const fn = new ServiceFunction(this, `Scheduled${pascalCase(definition.name)}`, {
        name: definition.name,
        projectRoot,
        handler: definition.handler,
        access: definition.access,
        timeoutSeconds: definition.timeoutSeconds,
        memoryMb: routeDefaults.memoryMb,
        description: `every ${definition.everyMinutes} minutes (${definition.name})`,
        resources,
        production,
        environment: environmentFor(definition.access),
      });
      new Rule(this, `Schedule${pascalCase(definition.name)}`, {
        description: `runs ${definition.name} every ${definition.everyMinutes} minutes`,
        schedule: Schedule.rate(Duration.minutes(definition.everyMinutes)),
        targets: [new LambdaFunction(fn.function, { retryAttempts: 2 })],
      });
      this.scheduledFunctions.set(definition.name, fn);
    }

    for (const definition of topics) {
      const topicConsumer = new TopicConsumer(this, `Topic${pascalCase(definition.topic)}`, {
        definition,
        ...consumerDeployment(definition.access),
      });
      this.topicConsumers.set(definition.topic, topicConsumer);
      this.alarms.watchQueue(
        `${definition.consumer.name}-failures-not-empty`,
        topicConsumer.failureQueue,
        `Messages of the ${definition.topic} topic the ${definition.consumer.name} consumer failed ${definition.retryAttempts + 1} times (or SNS could not hand over): look at them (each holds the SNS event) and replay them by publishing the message again.`,
      );
    }

    this.api = new ServiceApi(this, 'Http', {
      stageName: props.stage,
      routes,
      functions: new Map<string, IFunction>([...this.routeFunctions].map(([name, fn]) => [name, fn.function])),
      throttling: stageThrottling,
      tracing: props.tracing ?? true,
      production,
    });
    this.dashboard = watchService(this, routes, observability);

    // Built from the API id and the literal stage name, not from api.url: the stage depends
    // on the functions (through the methods), so a reference to it would be a cycle.
    const publicBaseUrl =
      props.publicBaseUrl?.replace(/\/+$/, '') ??
      `https://${this.api.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}/${props.stage}`;
    const smsSenders = [
      ...routes.filter((route) => sendsSms(route.access)).map((route) => this.routeFunctions.get(route.name)!),
      ...queues.filter((queue) => sendsSms(queue.access)).map((queue) => this.consumerFunctions.get(queue.name)!),
    ];
    for (const sender of smsSenders) sender.function.addEnvironment('PUBLIC_BASE_URL', publicBaseUrl);
    this.awsSms = configureAwsSms(this, this.topicConsumers, props, smsSenders);

    this.notifications = new OperationsNotifications(this, 'OperationsNotifications', { email: props.operationsEmail });
    const owners = routeAndConsumerOwners(routes, queues, this.routeFunctions, this.consumerFunctions);
    grantEmailSending(this, owners, props);
    for (const { access, fn } of owners) if (access.notifiesOperations) this.notifications.allowPublishing(fn);

    if (!props.operatorProvisioningUrl && [...routes, ...queues].some((owner) => owner.access.operatorProvisioning)) {
      Annotations.of(this).addWarningV2(
        'sim-service:operatorProvisioningUrl',
        "No operatorProvisioningUrl: a new SIM action answers 503 operator_not_configured. Deploy with -c operatorProvisioningUrl=https://... (the operator's provisioning API, docs/operator-provisioning-api.md) and set the OPERATOR_PROVISIONING_SECRET secret.",
      );
    }

    addStackOutputs(this);
  }
}
