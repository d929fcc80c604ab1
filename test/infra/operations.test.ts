import { readFileSync } from 'node:fs';
import type { CfnResource as CdkCfnResource } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { alarmThresholds } from '../../infra/constructs/operations-alarms';
import { isFallbackRoute, resourcePath } from '../../infra/constructs/api-plan';
import { projectRoot } from '../../infra/service-stack';
import { metricNames } from '../../shared/observability/metrics';
import { allRoutes } from '../../shared/topology/routes';
import { queueDefinitions } from '../../shared/topology/queues';
import { schedules } from '../../shared/topology/schedules';
import { streamConsumers } from '../../shared/topology/streams';
import { synthesise, type Synthesised } from './synth';
import { allActions, environmentOf, idsOfType, referencedIds } from './template-queries';

const idOf = (synthesised: Synthesised, construct: { node: { defaultChild?: unknown } }): string =>
  synthesised.stack.getLogicalId(construct.node.defaultChild as CdkCfnResource);

/** Every function (routes and consumers) by name, with the logical ids of it and its role. */
const functionsOf = (synthesised: Synthesised) => [
  ...allRoutes().map((route) => ({ name: route.name, fn: synthesised.stack.routeFunctions.get(route.name)! })),
  ...queueDefinitions.map((queue) => ({ name: queue.consumer.name, fn: synthesised.stack.consumerFunctions.get(queue.name)! })),
  ...streamConsumers.map((stream) => ({ name: stream.name, fn: synthesised.stack.streamConsumers.get(stream.name)!.consumer })),
  ...[...synthesised.stack.scheduledFunctions].map(([name, fn]) => ({ name, fn })),
].map(({ name, fn }) => ({ name, id: idOf(synthesised, fn.function), roleId: idOf(synthesised, fn.role) }));

/** The alarms of the template, with the runbook anchor their description ends with. */
const alarmsOf = (synthesised: Synthesised) =>
  idsOfType(synthesised.json, 'AWS::CloudWatch::Alarm').map((id) => {
    const properties = synthesised.json.Resources[id]!.Properties!;
    return { id, properties, runbook: /Runbook: docs\/operations\.md#([a-z0-9-]+)$/.exec(String(properties.AlarmDescription))?.[1] };
  });

const areaARoutes = allRoutes().filter((route) => route.area === 'developer' && !isFallbackRoute(route));

describe('operations in the stack: tracing, alarms to the operations topic, the dashboard', () => {
  let synthesised: Synthesised;
  let alarmTopicId: string;
  beforeAll(() => {
    synthesised = synthesise({ stage: 'dev', alarmEmail: 'ops@example.com', logLevel: 'debug' });
    alarmTopicId = idOf(synthesised, synthesised.stack.alarms.topic);
  });

  it('traces every function actively with X-Ray, and the API stage', () => {
    const { json } = synthesised;
    const functions = functionsOf(synthesised);
    expect(functions).toHaveLength(allRoutes().length + queueDefinitions.length + streamConsumers.length + schedules.length);
    for (const fn of functions) {
      expect(json.Resources[fn.id]!.Properties!.TracingConfig, fn.name).toEqual({ Mode: 'Active' });
      expect(allActions(json, fn.roleId), fn.name).toEqual(expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']));
    }
    const stages = idsOfType(json, 'AWS::ApiGateway::Stage').map((id) => json.Resources[id]!.Properties!);
    expect(stages.map((stage) => [stage.StageName, stage.TracingEnabled])).toEqual([['dev', true]]);
  });

  it('gives every function the log level, the stage\'s service name and the one metrics namespace', () => {
    for (const fn of functionsOf(synthesised)) {
      expect(environmentOf(synthesised.json, fn.id), fn.name).toMatchObject({
        LOG_LEVEL: 'DEBUG',
        POWERTOOLS_SERVICE_NAME: 'sim-checkout-service-dev',
        POWERTOOLS_METRICS_NAMESPACE: 'SimCheckoutService',
      });
    }
  });

  it('subscribes the alarmEmail context value to the alarms topic', () => {
    synthesised.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: { Ref: alarmTopicId },
    });
  });

  it('has exactly the alarms of the runbook, each to the operations topic, with its section in docs/operations.md', () => {
    const alarms = alarmsOf(synthesised);
    const functions = functionsOf(synthesised);
    const expected = [
      ...functions.flatMap((fn) => [`${fn.name}-errors`, `${fn.name}-throttles`]),
      'api-5xx-rate',
      ...areaARoutes.map((route) => `${route.name}-p99-latency`),
      'table-throttles',
      'table-system-errors',
      ...queueDefinitions.flatMap((queue) => [`${queue.name}-dlq-not-empty`, `${queue.name}-oldest-message`]),
      ...streamConsumers.map((stream) => `${stream.name}-failures-not-empty`),
      'order-flagged-for-review',
      'effect-outcome-unknown',
      'callback-failure-rate',
      'feed-rejection-rate',
    ];
    const stackPath = synthesised.stack.alarms.node.path;
    const ids = synthesised.stack.alarms.alarms.map((alarm) => alarm.node.path.slice(stackPath.length + 1));
    expect(ids.sort()).toEqual(expected.sort());
    expect(alarms).toHaveLength(expected.length);
    const runbook = readFileSync(`${projectRoot}/docs/operations.md`, 'utf8');
    const anchors = new Set([...runbook.matchAll(/^#{2,4} (.+)$/gm)].map(([, heading]) => heading!.trim().toLowerCase().replace(/[^a-z0-9 -]/g, '').replace(/ /g, '-')));
    for (const alarm of alarms) {
      expect(alarm.properties.AlarmActions, alarm.id).toEqual([{ Ref: alarmTopicId }]);
      expect(alarm.properties.TreatMissingData, alarm.id).toBe('notBreaching');
      expect(alarm.properties.ComparisonOperator, alarm.id).toBe('GreaterThanThreshold');
      expect(alarm.runbook, alarm.id).toBeDefined();
      expect(anchors.has(alarm.runbook!), `${alarm.id}: docs/operations.md#${alarm.runbook}`).toBe(true);
    }
  });

  it('watches errors and throttles of every function, by its name', () => {
    const alarms = alarmsOf(synthesised);
    for (const fn of functionsOf(synthesised)) {
      for (const metricName of ['Errors', 'Throttles']) {
        const alarm = alarms.find(
          ({ properties }) => properties.MetricName === metricName && referencedIds(properties.Dimensions).includes(fn.id),
        );
        expect(alarm?.properties, `${fn.name} ${metricName}`).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 0, Period: 300 });
      }
    }
  });

  it('watches the p99 latency of every Area A route by its method and resource, three periods in a row', () => {
    const alarms = alarmsOf(synthesised).filter(({ properties }) => properties.MetricName === 'Latency');
    expect(
      alarms.map(({ properties }) => {
        const dimensions = Object.fromEntries((properties.Dimensions as Array<{ Name: string; Value: unknown }>).map((d) => [d.Name, d.Value]));
        return [dimensions.Method, dimensions.Resource, dimensions.Stage, properties.ExtendedStatistic, properties.Threshold, properties.EvaluationPeriods];
      }).sort(),
    ).toEqual(areaARoutes.map((route) => [route.method, resourcePath(route.path), 'dev', 'p99', alarmThresholds.areaAp99LatencyMs, 3]).sort());
  });

  it('watches the API 5XX rate, the table, the queues and the service\'s own metrics', () => {
    const alarms = alarmsOf(synthesised);
    const byRunbook = (anchor: string) => alarms.filter((alarm) => alarm.runbook === anchor).map((alarm) => alarm.properties);
    const [api] = byRunbook('api-5xx-rate');
    const expressionOf = (properties: Record<string, any>) =>
      (properties.Metrics as Array<{ Expression?: string }>).find((metric) => metric.Expression)!.Expression;
    expect(expressionOf(api!)).toBe('IF(FILL(requests, 0) >= 20, 100 * FILL(errors, 0) / requests, 0)');
    expect(JSON.stringify(api!.Metrics)).toContain('"MetricName":"5XXError"');
    expect(JSON.stringify(byRunbook('table-throttles')[0]!.Metrics)).toContain('"MetricName":"WriteThrottleEvents"');
    expect(JSON.stringify(byRunbook('table-system-errors')[0]!.Metrics)).toContain('"MetricName":"SystemErrors"');
    for (const queue of queueDefinitions) {
      const queueId = idOf(synthesised, synthesised.stack.workQueues.get(queue.name)!.queue);
      const age = alarms.find(({ properties }) => properties.MetricName === 'ApproximateAgeOfOldestMessage' && referencedIds(properties.Dimensions).includes(queueId));
      expect(age?.properties, queue.name).toMatchObject({ Namespace: 'AWS/SQS', Threshold: queue.oldestMessageAlarmSeconds ?? alarmThresholds.oldestMessageSeconds, Statistic: 'Maximum' });
    }
    for (const [anchor, metricName] of [['order-flagged-for-review', 'OrdersFlaggedForReview'], ['effect-outcome-unknown', 'EffectsUnknown']] as const) {
      expect(byRunbook(anchor)[0], anchor).toMatchObject({
        Namespace: 'SimCheckoutService',
        MetricName: metricName,
        Dimensions: [{ Name: 'service', Value: 'sim-checkout-service-dev' }],
        Statistic: 'Sum',
        Threshold: 0,
      });
    }
    const callbacks = byRunbook('callback-failure-rate')[0]!;
    expect(expressionOf(callbacks)).toContain('100 * FILL(failed, 0) / (FILL(failed, 0) + FILL(forwarded, 0))');
    expect(JSON.stringify(callbacks.Metrics)).toContain('"MetricName":"CallbacksFailed"');
    expect(callbacks.Threshold).toBe(alarmThresholds.callbackFailurePercent);
  });

  it('has a dashboard with the golden signals of every route and every business metric', () => {
    const [dashboardId] = idsOfType(synthesised.json, 'AWS::CloudWatch::Dashboard');
    const body = JSON.stringify(synthesised.json.Resources[dashboardId!]!.Properties!.DashboardBody);
    for (const route of allRoutes()) expect(body, route.name).toContain(`${route.method} ${route.path} (${route.name})`);
    for (const name of Object.keys(metricNames)) expect(body, name).toContain(name);
    for (const gatewayMetric of ['4XXError', '5XXError', 'Latency', 'Count']) expect(body).toContain(gatewayMetric);
  });

  it('stays clean under cdk-nag', () => {
    const nag = Match.stringLikeRegexp('AwsSolutions-.*');
    const findings = [...synthesised.annotations.findError('*', nag), ...synthesised.annotations.findWarning('*', nag)].map(
      (finding) => `${finding.id}: ${String(finding.entry.data).split('\n')[0]}`,
    );
    expect(findings).toEqual([]);
  });
});
