import { Duration } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Dashboard, GraphWidget, MathExpression, Metric, TextWidget, type IMetric, type IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { MetricName } from '../../shared/observability/metrics';
import { metricNames } from '../../shared/observability/metrics';
import type { RouteDefinition } from '../../shared/topology/routes';
import { resourcePath } from './api-plan';
import { OperationsAlarms, type ServiceMetricsScope } from './operations-alarms';
import type { WorkQueue } from './work-queue';

/** What the dashboard shows. */
export interface OperationsDashboardProps {
  /** The CloudWatch dashboard's name. */
  dashboardName: string;
  api: RestApi;
  stage: string;
  routes: RouteDefinition[];
  /** Every function by name (routes and consumers). */
  functions: Map<string, IFunction>;
  queues: WorkQueue[];
  table: ITable;
  metrics: ServiceMetricsScope;
}

const period = Duration.minutes(5);

/** A SEARCH over the service's metric `name` by its own dimensions (one line per dimension value), for graphs. */
const searchOf = (scope: ServiceMetricsScope, name: MetricName, statistic = 'Sum', filter = ''): IMetric => {
  const dimensions = ['service', ...metricNames[name].dimensions].join(',');
  return new MathExpression({
    expression: `SEARCH('{${scope.namespace},${dimensions}} MetricName="${name}" service="${scope.service}"${filter}', '${statistic}', ${period.toSeconds()})`,
    usingMetrics: {},
    label: '',
    period,
  });
};

/**
 * The operations dashboard: the golden signals of the API and of every route (traffic,
 * errors, latency from API Gateway per method and resource; the service's own Requests and
 * Latency by route), saturation (function concurrency, throttles, duration; queue ages and
 * dead letters; table throttles), and the business metrics (SMS, receipts, callbacks,
 * checkouts, payment intents, fulfilments, review, unknown effects, 429s, auth failures,
 * cold starts). docs/operations.md says how to read it.
 */
export class OperationsDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const { api, stage, metrics } = props;
    const gateway = (metricName: string, statistic: string, extra: Record<string, string> = {}) =>
      new Metric({
        namespace: 'AWS/ApiGateway',
        metricName,
        dimensionsMap: { ApiName: api.restApiName, Stage: stage, ...extra },
        period,
        statistic,
      });
    const graph = (title: string, left: IMetric[], right: IMetric[] = [], width = 8) => new GraphWidget({ title, left, right, width, height: 6 });
    const service = (name: MetricName, statistic = 'Sum') => OperationsAlarms.serviceMetric(metrics, name, { statistic });

    const rows: IWidget[][] = [];
    rows.push([
      new TextWidget({
        markdown: `# ${props.dashboardName}\nGolden signals per route, saturation and the business metrics. Alarms and what to do: docs/operations.md.`,
        width: 24,
        height: 2,
      }),
    ]);
    rows.push([
      graph('API: requests', [gateway('Count', 'Sum')]),
      graph('API: 4XX and 5XX answers', [gateway('4XXError', 'Sum'), gateway('5XXError', 'Sum')]),
      graph('API: latency p50 / p99 (ms)', [gateway('Latency', 'p50'), gateway('Latency', 'p99')]),
    ]);
    rows.push([
      graph('Requests by route and status class (service)', [searchOf(metrics, 'Requests')]),
      graph('5xx answers by route (service)', [searchOf(metrics, 'Requests', 'Sum', ' status_class="5xx"')]),
      graph('Function time by route, p99 (ms, service)', [searchOf(metrics, 'Latency', 'p99')]),
    ]);
    const routeWidgets = props.routes.map((route) => {
      const dimensions = { Method: route.method, Resource: resourcePath(route.path) };
      return graph(
        `${route.method} ${route.path} (${route.name})`,
        [gateway('Count', 'Sum', dimensions), gateway('4XXError', 'Sum', dimensions), gateway('5XXError', 'Sum', dimensions)],
        [gateway('Latency', 'p50', dimensions), gateway('Latency', 'p99', dimensions)],
        6,
      );
    });
    for (let index = 0; index < routeWidgets.length; index += 4) rows.push(routeWidgets.slice(index, index + 4));

    const functions = [...props.functions];
    rows.push([
      graph('Functions: concurrent executions', functions.map(([name, fn]) => fn.metric('ConcurrentExecutions', { period, statistic: 'Maximum', label: name }))),
      graph('Functions: errors and throttles', [
        ...functions.map(([name, fn]) => fn.metricErrors({ period, statistic: 'Sum', label: `${name} errors` })),
        ...functions.map(([name, fn]) => fn.metricThrottles({ period, statistic: 'Sum', label: `${name} throttles` })),
      ]),
      graph('Functions: duration p99 (ms)', functions.map(([name, fn]) => fn.metricDuration({ period, statistic: 'p99', label: name }))),
    ]);
    rows.push([
      graph('Queues: age of the oldest message (s)', props.queues.map((queue) =>
        queue.queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum', label: queue.definition.name }),
      )),
      graph('Queues: messages waiting', props.queues.map((queue) =>
        queue.queue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: queue.definition.name }),
      )),
      graph('Dead-letter queues: messages', props.queues.map((queue) =>
        queue.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period, statistic: 'Maximum', label: `${queue.definition.name} DLQ` }),
      )),
    ]);
    const tableMetric = (metricName: string) =>
      new Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap: { TableName: props.table.tableName }, period, statistic: 'Sum' });
    rows.push([
      graph('Table: throttle events', [tableMetric('ReadThrottleEvents'), tableMetric('WriteThrottleEvents')]),
      graph('Table: consumed capacity', [tableMetric('ConsumedReadCapacityUnits'), tableMetric('ConsumedWriteCapacityUnits')]),
      graph('Cold starts by function', [searchOf(metrics, 'ColdStart')]),
    ]);
    rows.push([
      graph('SMS submitted and refused (by code)', [service('SmsSubmitted'), searchOf(metrics, 'SmsRefused')]),
      graph('Delivery receipts by status', [searchOf(metrics, 'Receipts')]),
      graph('Callbacks forwarded and failed', [service('CallbacksForwarded'), service('CallbacksFailed')]),
    ]);
    rows.push([
      // AWS End User Messaging SMS (issue #21): delivery events by type and outcome, inbound SMS by outcome.
      graph('SMS delivery events (AWS) by type and outcome', [searchOf(metrics, 'SmsDeliveryEvents')], [], 12),
      graph('Inbound SMS by outcome (stored, repeat, unknown_number)', [searchOf(metrics, 'InboundSms')], [], 12),
    ]);
    rows.push([
      graph('Checkouts by endpoint and outcome', [searchOf(metrics, 'Checkouts')]),
      graph('Payment intents created and failed', [service('PaymentIntentsCreated'), searchOf(metrics, 'PaymentIntentsFailed')]),
      graph('Fulfilments, orders flagged for review, effects unknown', [
        service('FulfilmentsCompleted'),
        service('OrdersFlaggedForReview'),
        service('EffectsUnknown'),
      ]),
    ]);
    rows.push([
      graph('429 answers by code', [searchOf(metrics, 'RateLimited')], [], 8),
      graph('Authentication failures by code', [searchOf(metrics, 'AuthFailures')], [], 8),
      // The operator feed (issue #20): its lines by outcome (applied, unchanged, stale, rejected).
      graph('Operator feed lines by outcome', [searchOf(metrics, 'FeedRecords')], [], 8),
    ]);
    rows.push([
      // The table's stream consumers (issue #31): records they could not process, set aside on their failure queues.
      graph('Stream records set aside by consumer', [searchOf(metrics, 'StreamRecordsSetAside')], [], 24),
    ]);
    rows.push([
      // SIM actions (issue #33): the operator's answers, and how actions ended.
      graph("Operator's provisioning API: answers by outcome", [searchOf(metrics, 'OperatorRequests')], [], 12),
      graph('SIM actions ended by outcome', [searchOf(metrics, 'SimActionsEnded')], [], 12),
    ]);

    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName, widgets: rows });
  }
}
