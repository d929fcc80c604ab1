import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Annotations, ArnFormat, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Construct } from 'constructs';
import { queueDefinitions as allQueueDefinitions, type QueueDefinition } from '../shared/topology/queues';
import { allRoutes, type QueueName, type RouteDefinition, type SecretName } from '../shared/topology/routes';
import { streamConsumers as allStreamConsumers, type StreamConsumerDefinition } from '../shared/topology/streams';
import { topicConsumers as allTopicConsumers, type TopicConsumerDefinition, type TopicName } from '../shared/topology/topics';
import { defaultServiceName, parseLogLevel } from '../shared/observability/logger';
import { defaultMetricsNamespace } from '../shared/observability/metrics';
import { isFallbackRoute, resourcePath } from './constructs/api-plan';
import { OperationsAlarms } from './constructs/operations-alarms';
import { OperationsDashboard } from './constructs/operations-dashboard';
import { OperationsNotifications } from './constructs/operations-notifications';
import { ServiceApi } from './constructs/service-api';
import { ServiceFunction, type ServiceResources } from './constructs/service-function';
import { secretPhysicalName, ServiceSecrets } from './constructs/service-secrets';
import { ServiceTable } from './constructs/service-table';
import { StreamConsumer } from './constructs/stream-consumer';
import { AwsSmsChannel, originationIdentityArn } from './constructs/aws-sms';
import { TopicConsumer } from './constructs/topic-consumer';
import { WorkQueue } from './constructs/work-queue';

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

const pascal = (name: string): string =>
  name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

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
  /** The SNS topics with their consumers, by topic (only those of the deployed features). */
  readonly topicConsumers = new Map<TopicName, TopicConsumer>();
  /** AWS End User Messaging SMS (with smsProvider aws): the configuration set and the two-way channel. */
  awsSms?: AwsSmsChannel;
  readonly api: ServiceApi;
  readonly alarms: OperationsAlarms;
  dashboard!: OperationsDashboard;
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
    const secretNames: SecretName[] = [...routes, ...queues, ...streams, ...topics].flatMap((owner) => owner.access.secrets ?? []);
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
    });

    for (const route of routes) {
      if (this.routeFunctions.has(route.name)) throw new Error(`two routes are named ${route.name}`);
      this.routeFunctions.set(
        route.name,
        new ServiceFunction(this, `Route${pascal(route.name)}`, {
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
      const consumer = new ServiceFunction(this, `Consumer${pascal(definition.consumer.name)}`, {
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
    for (const definition of streams) {
      const streamConsumer = new StreamConsumer(this, `Stream${pascal(definition.name)}`, {
        definition,
        projectRoot,
        resources,
        memoryMb: routeDefaults.memoryMb,
        production,
        environment: environmentFor(definition.access),
      });
      this.streamConsumers.set(definition.name, streamConsumer);
      this.alarms.watchQueue(
        `${definition.name}-failures-not-empty`,
        streamConsumer.failureQueue,
        `Stream records the ${definition.name} consumer failed ${definition.retryAttempts + 1} times (their positions are in the queue): read them from the stream and look at them within 24 hours.`,
      );
    }

    for (const definition of topics) {
      const topicConsumer = new TopicConsumer(this, `Topic${pascal(definition.topic)}`, {
        definition,
        projectRoot,
        resources,
        memoryMb: routeDefaults.memoryMb,
        production,
        environment: environmentFor(definition.access),
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
    this.watch(routes, observability);

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
    this.configureAwsSms(props, smsSenders);

    this.notifications = new OperationsNotifications(this, 'OperationsNotifications', { email: props.operationsEmail });
    this.grantEmailAndNotifications(routes, queues, props);

    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the API (stage included)' });
    new CfnOutput(this, 'TableName', { value: this.serviceTable.table.tableName, description: 'The service table' });
    for (const [name, workQueue] of this.workQueues) {
      new CfnOutput(this, `${pascal(name)}QueueUrl`, { value: workQueue.queue.queueUrl, description: `The ${name} queue` });
      new CfnOutput(this, `${pascal(name)}DeadLetterQueueUrl`, {
        value: workQueue.deadLetterQueue.queueUrl,
        description: `The dead-letter queue of the ${name} queue`,
      });
    }
    for (const name of this.secrets.secrets.keys()) {
      new CfnOutput(this, `Secret${pascal(name.toLowerCase())}`, {
        value: secretPhysicalName(this.stackName, name),
        description: `Secrets Manager name of ${name}; set its value with put-secret-value`,
      });
    }
    new CfnOutput(this, 'DashboardName', { value: this.dashboard.dashboard.dashboardName, description: 'The operations dashboard (CloudWatch)' });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn, description: 'Operations alarms topic' });
    for (const [topic, consumer] of this.topicConsumers) {
      new CfnOutput(this, `${pascal(topic)}TopicArn`, { value: consumer.topic.topicArn, description: `The ${topic} SNS topic: ${consumer.definition.description}` });
    }
    if (this.awsSms) {
      new CfnOutput(this, 'SmsConfigurationSetName', { value: this.awsSms.configurationSet.ref, description: 'The AWS End User Messaging configuration set of the SMS' });
    }
    new CfnOutput(this, 'NotificationTopicArn', {
      value: this.notifications.topic.topicArn,
      description: 'Operations notifications topic (orders awaiting a person)',
    });
  }

  /**
   * The alarms (to the operations alarms topic) and the dashboard over every function, the
   * API, the table, the queues and the service's own metrics (docs/operations.md).
   */
  private watch(routes: RouteDefinition[], observability: Record<string, string>): void {
    for (const [name, fn] of this.routeFunctions) this.alarms.watchFunction(name, fn.function);
    for (const [queue, fn] of this.consumerFunctions) this.alarms.watchFunction(this.workQueues.get(queue)!.definition.consumer.name, fn.function);
    for (const [name, stream] of this.streamConsumers) this.alarms.watchFunction(name, stream.consumer.function);
    for (const topic of this.topicConsumers.values()) this.alarms.watchFunction(topic.definition.consumer.name, topic.consumer.function);
    this.alarms.watchApiErrors(this.api.api, this.stage);
    for (const route of routes.filter((candidate) => candidate.area === 'developer' && !isFallbackRoute(candidate))) {
      this.alarms.watchRouteLatency(this.api.api, this.stage, route.name, route.method, resourcePath(route.path));
    }
    this.alarms.watchTable(this.serviceTable.table);
    const metrics = { namespace: observability.POWERTOOLS_METRICS_NAMESPACE!, service: observability.POWERTOOLS_SERVICE_NAME! };
    this.alarms.watchBusinessMetrics(metrics);
    this.dashboard = new OperationsDashboard(this, 'OperationsDashboard', {
      dashboardName: `${this.stackName}-operations`,
      api: this.api.api,
      stage: this.stage,
      routes,
      functions: new Map([
        ...[...this.routeFunctions].map(([name, fn]): [string, IFunction] => [name, fn.function]),
        ...[...this.workQueues].map(([queue, work]): [string, IFunction] => [work.definition.consumer.name, this.consumerFunctions.get(queue)!.function]),
        ...[...this.streamConsumers].map(([name, stream]): [string, IFunction] => [name, stream.consumer.function]),
        ...[...this.topicConsumers.values()].map((topic): [string, IFunction] => [topic.definition.consumer.name, topic.consumer.function]),
      ]),
      queues: [...this.workQueues.values()],
      table: this.serviceTable.table,
      metrics,
    });
  }

  /**
   * AWS End User Messaging SMS (issue #21; docs/deploy.md), with smsProvider aws: the
   * configuration set whose event destination is the `sms-events` topic, and for every function
   * that sends SMS (send-sms, fulfil-order) SMS_PROVIDER, SMS_ORIGINATION_IDENTITY and
   * SMS_CONFIGURATION_SET and leave to call sms-voice:SendTextMessage on that origination
   * identity and configuration set only. With smsTwoWay and smsPhoneNumberId, the number's two-way
   * channel is pointed at the `sms-inbound` topic. Without an origination identity synth warns and
   * the functions answer sms_not_configured.
   */
  private configureAwsSms(props: ServiceStackProps, senders: ServiceFunction[]): void {
    const events = this.topicConsumers.get('sms-events');
    const inbound = this.topicConsumers.get('sms-inbound');
    if (props.smsPhoneNumberId && !inbound) throw new Error('smsPhoneNumberId needs smsTwoWay=true');
    if (!events) return;
    const configurationSetName = `${this.stackName}-sms`;
    this.awsSms = new AwsSmsChannel(this, 'AwsSms', {
      configurationSetName,
      eventsTopic: events.topic,
      eventsTopicDependencies: [events.topic, events.key],
      ...(inbound && props.smsPhoneNumberId
        ? { twoWay: { phoneNumberId: props.smsPhoneNumberId, inboundTopic: inbound.topic, dependencies: [inbound.topic, inbound.key] } }
        : {}),
    });
    const identity = props.smsOriginationIdentity;
    for (const sender of senders) {
      sender.function.addEnvironment('SMS_PROVIDER', 'aws');
      sender.function.addEnvironment('SMS_CONFIGURATION_SET', configurationSetName);
      if (!identity) {
        Annotations.of(sender).addWarningV2(
          'service:sms-origination-identity-missing',
          'smsProvider=aws without smsOriginationIdentity: this function answers sms_not_configured until the stack is deployed with -c smsOriginationIdentity=...',
        );
        continue;
      }
      sender.function.addEnvironment('SMS_ORIGINATION_IDENTITY', identity);
      sender.role.addToPrincipalPolicy(
        new PolicyStatement({
          actions: ['sms-voice:SendTextMessage'],
          resources: [originationIdentityArn(this, identity), this.awsSms.configurationSetArn],
        }),
      );
    }
  }

  /**
   * Lets exactly the functions whose access says so send e-mail through SES (as the one
   * verified identity, with EMAIL_FROM) and publish to the operations notifications topic
   * (with OPERATIONS_TOPIC_ARN).
   */
  private grantEmailAndNotifications(routes: RouteDefinition[], queues: QueueDefinition[], props: ServiceStackProps): void {
    const owners = [
      ...routes.map((route) => ({ name: route.name, access: route.access, fn: this.routeFunctions.get(route.name)! })),
      ...queues.map((queue) => ({ name: queue.consumer.name, access: queue.access, fn: this.consumerFunctions.get(queue.name)! })),
    ];
    // emailFrom may be a display form, `Shop <orders@shop.example.net>`: the identity is the address's domain.
    const senderAddress = props.emailFrom ? (/<([^<>]+)>\s*$/.exec(props.emailFrom)?.[1] ?? props.emailFrom).trim() : undefined;
    const identity = props.emailIdentity ?? senderAddress?.split('@')[1];
    const withoutEmail: string[] = [];
    for (const { name, access, fn } of owners) {
      if (access.sendsEmail) {
        if (props.emailFrom && identity) {
          fn.function.addEnvironment('EMAIL_FROM', props.emailFrom);
          fn.role.addToPrincipalPolicy(
            new PolicyStatement({
              actions: ['ses:SendEmail', 'ses:SendRawEmail'],
              resources: [
                this.formatArn({ service: 'ses', resource: 'identity', resourceName: identity, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }),
              ],
            }),
          );
        } else {
          withoutEmail.push(name);
        }
      }
      if (access.notifiesOperations) {
        this.notifications.topic.grantPublish(fn.role);
        fn.function.addEnvironment('OPERATIONS_TOPIC_ARN', this.notifications.topic.topicArn);
      }
    }
    if (withoutEmail.length > 0) {
      // Once for the stack, saying what to do (not once per function that would send).
      Annotations.of(this).addWarningV2(
        'service:email-not-configured',
        `No emailFrom context, so ${withoutEmail.join(', ')} cannot e-mail receipts and invoices (their fulfilment messages end in the dead-letter queue). ` +
          'Deploy with -c emailFrom=orders@<your domain>, a domain verified in SES (or name the verified identity with -c emailIdentity=...); docs/deploy.md, "Deploy".',
      );
    }
  }
}
