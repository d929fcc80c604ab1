import { Match } from 'aws-cdk-lib/assertions';
import type { CfnResource as CdkCfnResource } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { alarmThresholds } from '../../infra/constructs/operations-alarms';
import { queueDefinition } from '../../shared/topology/queues';
import { fixtureRoutes } from './fixture-routes';
import { synthesise, type Synthesised } from './synth';
import { allActions, idsOfType, referencedIds, roleStatements } from './template-queries';

/**
 * The operator feed's deployed transport (issue #20, point 3): its queue (encrypted, a DLQ,
 * alarms) takes messages from the principal given at deploy alone, its consumer reports item
 * failures and may touch the table and nothing else, and a sustained rate of refused lines
 * raises an alarm.
 */

const principal = 'arn:aws:iam::123456789012:role/operator-mediation';
const feed = queueDefinition('operator-feed');

const logicalId = (synthesised: Synthesised, construct: { node: { defaultChild?: unknown } }): string =>
  synthesised.stack.getLogicalId(construct.node.defaultChild as CdkCfnResource);

/** The statements of the feed queue's policy, without the TLS-only one every queue has. */
const feedQueueStatements = (synthesised: Synthesised) => {
  const { json, stack } = synthesised;
  const queueId = logicalId(synthesised, stack.workQueues.get('operator-feed')!.queue);
  return idsOfType(json, 'AWS::SQS::QueuePolicy')
    .map((id) => json.Resources[id]!.Properties!)
    .filter((policy) => referencedIds(policy.Queues).includes(queueId))
    .flatMap((policy) => policy.PolicyDocument.Statement as Record<string, unknown>[])
    .filter((statement) => !(statement.Condition as { Bool?: unknown } | undefined)?.Bool);
};

describe('the operator feed in the stack, deployed with -c feedPrincipalArn', () => {
  let synthesised: Synthesised;
  beforeAll(() => {
    synthesised = synthesise({ stage: 'dev', routes: fixtureRoutes, feedPrincipalArn: principal });
  });

  it('lets the configured principal send and denies SendMessage to every other', () => {
    const { json, stack } = synthesised;
    const queueArn = { 'Fn::GetAtt': [logicalId(synthesised, stack.workQueues.get('operator-feed')!.queue), 'Arn'] };
    expect(feedQueueStatements(synthesised)).toEqual([
      { Sid: 'AllowTheConfiguredSender', Effect: 'Allow', Principal: { AWS: principal }, Action: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'], Resource: queueArn },
      { Sid: 'DenyEveryOtherSender', Effect: 'Deny', Principal: { AWS: '*' }, Action: 'sqs:SendMessage', Resource: queueArn, Condition: { ArnNotEquals: { 'aws:PrincipalArn': principal } } },
    ]);
    // No other queue takes messages from outside.
    const others = idsOfType(json, 'AWS::SQS::QueuePolicy')
      .map((id) => json.Resources[id]!.Properties!)
      .flatMap((policy) => policy.PolicyDocument.Statement as Record<string, unknown>[])
      .filter((statement) => statement.Effect === 'Allow');
    expect(others).toHaveLength(1);
  });

  it('encrypts the queue and its dead-letter queue, redrives after five receives and alarms on both', () => {
    const { json, stack } = synthesised;
    const workQueue = stack.workQueues.get('operator-feed')!;
    const queueId = logicalId(synthesised, workQueue.queue);
    const deadLetterId = logicalId(synthesised, workQueue.deadLetterQueue);
    expect(json.Resources[queueId]!.Properties).toMatchObject({
      SqsManagedSseEnabled: true,
      VisibilityTimeout: 6 * feed.consumerTimeoutSeconds,
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterId, 'Arn'] }, maxReceiveCount: 5 },
    });
    expect(json.Resources[deadLetterId]!.Properties).toMatchObject({ SqsManagedSseEnabled: true, MessageRetentionPeriod: 14 * 24 * 3600 });
    const alarms = idsOfType(json, 'AWS::CloudWatch::Alarm').map((id) => json.Resources[id]!.Properties!);
    const on = (id: string, metric: string) => alarms.find((alarm) => alarm.MetricName === metric && referencedIds(alarm.Dimensions).includes(id));
    expect(on(deadLetterId, 'ApproximateNumberOfMessagesVisible')).toMatchObject({ Threshold: 0 });
    expect(on(queueId, 'ApproximateAgeOfOldestMessage')).toMatchObject({ Threshold: 1800 });
  });

  it('raises an alarm when over 5 % of the lines are refused for three 5-minute periods in a row', () => {
    const alarm = idsOfType(synthesised.json, 'AWS::CloudWatch::Alarm')
      .map((id) => synthesised.json.Resources[id]!.Properties!)
      .find((candidate) => String(candidate.AlarmDescription).includes('docs/operations.md#feed-rejection-rate'))!;
    expect(alarm).toMatchObject({ Threshold: alarmThresholds.feedRejectedPercent, EvaluationPeriods: 3, ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching' });
    const metrics = alarm.Metrics as { Id: string; Expression?: string; MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] } } }[];
    expect(metrics.find((metric) => metric.Expression)!.Expression).toBe('IF(FILL(lines, 0) >= 100, 100 * FILL(refused, 0) / lines, 0)');
    const dimensionsOf = (id: string) => metrics.find((metric) => metric.Id === id)!.MetricStat!.Metric.Dimensions.map((dimension) => dimension.Name);
    expect([dimensionsOf('refused'), dimensionsOf('lines')]).toEqual([['outcome', 'service'], ['service']]);
  });

  it('gives the consumer item failure reports and a role that reads and writes the table and nothing else', () => {
    const { json, stack } = synthesised;
    const consumer = stack.consumerFunctions.get('operator-feed')!;
    const functionId = logicalId(synthesised, consumer.function);
    const mapping = idsOfType(json, 'AWS::Lambda::EventSourceMapping')
      .map((id) => json.Resources[id]!.Properties!)
      .find((candidate) => referencedIds(candidate.FunctionName).includes(functionId));
    expect(mapping).toMatchObject({ BatchSize: feed.batchSize, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    const roleId = logicalId(synthesised, consumer.role);
    const tableId = logicalId(synthesised, stack.serviceTable.table);
    const queueId = logicalId(synthesised, stack.workQueues.get('operator-feed')!.queue);
    for (const statement of roleStatements(json, roleId).filter((candidate) => candidate.Effect === 'Allow')) {
      const targets = [...new Set(statement.Resource.flatMap(referencedIds).filter((id) => id in json.Resources))];
      const services = new Set(statement.Action.map((action) => action.split(':')[0]));
      // DynamoDB on the table (and its indexes), SQS on its own queue (the event source), X-Ray and its own logs.
      if (services.has('dynamodb')) expect(targets).toEqual([tableId]);
      else if (services.has('sqs')) expect(targets).toEqual([queueId]);
      else expect([...services].every((service) => service === 'xray' || service === 'logs'), statement.Action.join(',')).toBe(true);
    }
    const actions = allActions(json, roleId);
    expect(actions.filter((action) => action.startsWith('sqs:')).sort()).toEqual(['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage']);
    expect(actions.filter((action) => /^(secretsmanager|sns|ses|kms):/.test(action))).toEqual([]);
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:UpdateItem', 'dynamodb:BatchGetItem', 'dynamodb:Query']));
  });
});

describe('the operator feed in the stack, deployed without a principal', () => {
  let synthesised: Synthesised;
  beforeAll(() => {
    synthesised = synthesise({ stage: 'dev', routes: fixtureRoutes });
  });

  it('denies every SendMessage and says so at synth', () => {
    const { stack } = synthesised;
    const queueArn = { 'Fn::GetAtt': [logicalId(synthesised, stack.workQueues.get('operator-feed')!.queue), 'Arn'] };
    expect(feedQueueStatements(synthesised)).toEqual([{ Sid: 'DenyEveryOtherSender', Effect: 'Deny', Principal: { AWS: '*' }, Action: 'sqs:SendMessage', Resource: queueArn }]);
    expect(synthesised.annotations.findWarning('*', Match.stringLikeRegexp('operator-feed queue accepts no message')).length).toBe(1);
  });
});
