import { Duration, Stack } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, MathExpression, Metric, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { MetricName } from '../../shared/observability/metrics';
import type { WorkQueue } from './work-queue';

/** Where the service's own metrics are (shared/observability/metrics.ts): the namespace and the `service` dimension. */
export interface ServiceMetricsScope {
  namespace: string;
  service: string;
}

/** The thresholds of the alarms (docs/operations.md explains each). */
export const alarmThresholds = {
  /** API 5XX answers, percent of requests over 5 minutes (with at least `api5xxMinimumRequests`). */
  api5xxPercent: 1,
  api5xxMinimumRequests: 20,
  /** Area A p99 latency per route, milliseconds, three 5-minute periods in a row. */
  areaAp99LatencyMs: 1000,
  /** Age of the oldest message of a work queue, seconds. */
  oldestMessageSeconds: 300,
  /** Failed callback forwards, percent of forwards over 15 minutes (with at least `callbackMinimumForwards`). */
  callbackFailurePercent: 20,
  callbackMinimumForwards: 5,
  /** Refused operator feed lines, percent of lines, three 5-minute periods in a row (each with at least `feedMinimumLines`). */
  feedRejectedPercent: 5,
  feedMinimumLines: 100,
} as const;

/** The five-minute period of every alarm. */
const period = Duration.minutes(5);

/** Options of the operations alarms. */
export interface OperationsAlarmsProps {
  /** E-mail address subscribed to the alarms topic (`-c alarmEmail=...`; it confirms the subscription once). */
  email?: string;
}

/**
 * The "operations alarms" SNS topic and every alarm of the service, each publishing to it
 * (docs/operations.md is the runbook: what each means and what to do): API 5XX rate, errors
 * and throttles per function, Area A p99 latency per route, DynamoDB throttles and system
 * errors, the age of the oldest message and the dead-letter depth per queue, any order
 * flagged for review or effect whose outcome is unknown, and the callback failure rate.
 * Operators subscribe to the topic by e-mail with the `alarmEmail` context value.
 */
export class OperationsAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];
  private readonly action: SnsAction;

  constructor(scope: Construct, id: string, props: OperationsAlarmsProps = {}) {
    super(scope, id);
    // Not KMS-encrypted: alarm notifications carry no customer data, and CloudWatch cannot
    // publish to a topic encrypted with the AWS managed SNS key.
    this.topic = new Topic(this, 'Topic', { displayName: 'Operations alarms', enforceSSL: true });
    // The topic policy that enforceSSL creates replaces the default one, so CloudWatch's
    // right to publish is stated explicitly, for this account's alarms only.
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        actions: ['sns:Publish'],
        principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
    );
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
    this.action = new SnsAction(this.topic);
  }

  /**
   * One alarm on `metric`, raised above `threshold` for `evaluationPeriods` periods, to the
   * topic; missing data is fine. Its description ends with its section of the runbook
   * (docs/operations.md, `runbook` is the heading's anchor).
   */
  private alarm(id: string, runbook: string, description: string, metric: IMetric, threshold: number, evaluationPeriods = 1): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: `${description} Runbook: docs/operations.md#${runbook}`,
      metric,
      threshold,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    this.alarms.push(alarm);
    return alarm;
  }

  /** Alarms when the dead-letter queue of `workQueue` holds any message. */
  watchDeadLetterQueue(workQueue: WorkQueue): Alarm {
    const name = workQueue.definition.name;
    return this.alarm(
      `${name}-dlq-not-empty`,
      'dead-letter-queue-not-empty',
      `Messages in the dead-letter queue of the ${name} queue: the ${workQueue.definition.consumer.name} consumer failed them ${workQueue.definition.maxReceiveCount} times. Look at them and redrive them.`,
      workQueue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }),
      0,
    );
  }

  /**
   * Alarms when `queue` (a dead-letter or failure queue) holds any message; its runbook section
   * is dead-letter-queue-not-empty.
   */
  watchQueue(id: string, queue: IQueue, description: string): Alarm {
    return this.alarm(id, 'dead-letter-queue-not-empty', description, queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum' }), 0);
  }

  /** Alarms when the oldest message of `workQueue` waits longer than its `oldestMessageAlarmSeconds` (default `alarmThresholds.oldestMessageSeconds`). */
  watchQueueAge(workQueue: WorkQueue): Alarm {
    const name = workQueue.definition.name;
    const seconds = workQueue.definition.oldestMessageAlarmSeconds ?? alarmThresholds.oldestMessageSeconds;
    return this.alarm(
      `${name}-oldest-message`,
      'oldest-message-too-old',
      `The oldest message of the ${name} queue has waited over ${seconds} s: its consumer (${workQueue.definition.consumer.name}) is failing, throttled or behind.`,
      workQueue.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum' }),
      seconds,
    );
  }

  /** Alarms on any invocation error (a crash or a timeout: HTTP routes answer their own errors) and any throttle of `fn`. */
  watchFunction(name: string, fn: IFunction): Alarm[] {
    return [
      this.alarm(
        `${name}-errors`,
        'function-errors',
        `The ${name} function failed invocations (unhandled errors, timeouts or crashes at init).`,
        fn.metricErrors({ period, statistic: 'Sum' }),
        0,
      ),
      this.alarm(
        `${name}-throttles`,
        'function-throttles',
        `The ${name} function was throttled (account or reserved concurrency used up).`,
        fn.metricThrottles({ period, statistic: 'Sum' }),
        0,
      ),
    ];
  }

  /** Alarms when more than `api5xxPercent` % of the API's answers are 5XX (with enough requests to mean something). */
  watchApiErrors(api: RestApi, stage: string): Alarm {
    const dimensionsMap = { ApiName: api.restApiName, Stage: stage };
    const errors = new Metric({ namespace: 'AWS/ApiGateway', metricName: '5XXError', dimensionsMap, period, statistic: 'Sum' });
    const requests = new Metric({ namespace: 'AWS/ApiGateway', metricName: 'Count', dimensionsMap, period, statistic: 'Sum' });
    const { api5xxMinimumRequests: minimum } = alarmThresholds;
    return this.alarm(
      'api-5xx-rate',
      'api-5xx-rate',
      `Over ${alarmThresholds.api5xxPercent} % of the API's answers were 5XX (at least ${minimum} requests in 5 minutes).`,
      new MathExpression({
        expression: `IF(FILL(requests, 0) >= ${minimum}, 100 * FILL(errors, 0) / requests, 0)`,
        usingMetrics: { errors, requests },
        label: '5XX answers (%)',
        period,
      }),
      alarmThresholds.api5xxPercent,
    );
  }

  /** Alarms when an Area A route's p99 latency (API Gateway's, per method and resource) stays over the threshold. */
  watchRouteLatency(api: RestApi, stage: string, name: string, method: string, resource: string): Alarm {
    return this.alarm(
      `${name}-p99-latency`,
      'area-a-p99-latency',
      `The p99 latency of ${method} ${resource} (${name}) stayed over ${alarmThresholds.areaAp99LatencyMs} ms for 15 minutes.`,
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName: 'Latency',
        dimensionsMap: { ApiName: api.restApiName, Stage: stage, Method: method, Resource: resource },
        period,
        statistic: 'p99',
      }),
      alarmThresholds.areaAp99LatencyMs,
      3,
    );
  }

  /** Alarms on any read or write throttle event and any system error of the table. */
  watchTable(table: ITable): Alarm[] {
    const dimensionsMap = { TableName: table.tableName };
    const metric = (metricName: string) => new Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap, period, statistic: 'Sum' });
    return [
      this.alarm(
        'table-throttles',
        'table-throttles',
        'DynamoDB throttled reads or writes of the service table.',
        new MathExpression({
          expression: 'FILL(reads, 0) + FILL(writes, 0)',
          usingMetrics: { reads: metric('ReadThrottleEvents'), writes: metric('WriteThrottleEvents') },
          label: 'Throttle events',
          period,
        }),
        0,
      ),
      this.alarm(
        'table-system-errors',
        'table-system-errors',
        'DynamoDB answered requests on the service table with a 500 (system errors).',
        table.metricSystemErrorsForOperations({
          operations: [
            Operation.GET_ITEM, Operation.PUT_ITEM, Operation.UPDATE_ITEM, Operation.DELETE_ITEM,
            Operation.QUERY, Operation.BATCH_GET_ITEM, Operation.BATCH_WRITE_ITEM, Operation.TRANSACT_WRITE_ITEMS,
          ],
          period,
          statistic: 'Sum',
        }),
        0,
      ),
    ];
  }

  /** The service's own metric (EMF, by `service` alone), summed over the period. */
  static serviceMetric(scope: ServiceMetricsScope, name: MetricName, options: { period?: Duration; statistic?: string; dimensions?: Record<string, string> } = {}): Metric {
    return new Metric({
      namespace: scope.namespace,
      metricName: name,
      dimensionsMap: { service: scope.service, ...options.dimensions },
      period: options.period ?? period,
      statistic: options.statistic ?? 'Sum',
    });
  }

  /** Alarms on any order flagged for review, any effect whose outcome is unknown, a high callback failure rate and a sustained rate of refused operator feed lines. */
  watchBusinessMetrics(scope: ServiceMetricsScope): Alarm[] {
    const window = Duration.minutes(15);
    const { callbackMinimumForwards: minimum } = alarmThresholds;
    return [
      this.alarm(
        'order-flagged-for-review',
        'order-flagged-for-review',
        'A paid order was flagged for review (its payment does not match it, or it cannot be provisioned): nothing was provisioned, a person decides.',
        OperationsAlarms.serviceMetric(scope, 'OrdersFlaggedForReview'),
        0,
      ),
      this.alarm(
        'effect-outcome-unknown',
        'effect-outcome-unknown',
        'A fulfilment e-mail, SMS or notification may or may not have been sent (its worker stopped mid-send): it is not sent again by itself.',
        OperationsAlarms.serviceMetric(scope, 'EffectsUnknown'),
        0,
      ),
      this.alarm(
        'callback-failure-rate',
        'callback-failure-rate',
        `Over ${alarmThresholds.callbackFailurePercent} % of delivery receipt forwards to callback_url failed in 15 minutes (at least ${minimum} forwards).`,
        new MathExpression({
          expression: `IF(FILL(failed, 0) + FILL(forwarded, 0) >= ${minimum}, 100 * FILL(failed, 0) / (FILL(failed, 0) + FILL(forwarded, 0)), 0)`,
          usingMetrics: {
            failed: OperationsAlarms.serviceMetric(scope, 'CallbacksFailed', { period: window }),
            forwarded: OperationsAlarms.serviceMetric(scope, 'CallbacksForwarded', { period: window }),
          },
          label: 'Failed forwards (%)',
          period: window,
        }),
        alarmThresholds.callbackFailurePercent,
      ),
      this.alarm(
        'feed-rejection-rate',
        'feed-rejection-rate',
        `Over ${alarmThresholds.feedRejectedPercent} % of the operator feed's lines were refused in each of three 5-minute periods in a row (at least ${alarmThresholds.feedMinimumLines} lines each): the operator's systems send records the service cannot apply.`,
        new MathExpression({
          expression: `IF(FILL(lines, 0) >= ${alarmThresholds.feedMinimumLines}, 100 * FILL(refused, 0) / lines, 0)`,
          usingMetrics: {
            refused: OperationsAlarms.serviceMetric(scope, 'FeedRecords', { dimensions: { outcome: 'rejected' } }),
            lines: OperationsAlarms.serviceMetric(scope, 'FeedRecords'),
          },
          label: 'Refused feed lines (%)',
          period,
        }),
        alarmThresholds.feedRejectedPercent,
        3,
      ),
    ];
  }
}
