import { Duration, Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { WorkQueue } from './work-queue';

/**
 * The "operations alarms" SNS topic and the alarms that publish to it: one per dead-letter
 * queue, raised as soon as a message sits in it (a consumer failed `maxReceiveCount` times).
 * Operators subscribe to the topic (docs/deploy.md).
 */
export class OperationsAlarms extends Construct {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string) {
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
  }

  /** Alarms when the dead-letter queue of `workQueue` holds any message. */
  watchDeadLetterQueue(workQueue: WorkQueue): Alarm {
    const name = workQueue.definition.name;
    return this.watchQueue(
      `${name}-dlq-not-empty`,
      workQueue.deadLetterQueue,
      `Messages in the dead-letter queue of the ${name} queue: the ${workQueue.definition.consumer.name} consumer failed them ${workQueue.definition.maxReceiveCount} times. Look at them and redrive them.`,
    );
  }

  /** Alarms when `queue` (a dead-letter or failure queue) holds any message. */
  watchQueue(id: string, queue: IQueue, description: string): Alarm {
    const alarm = new Alarm(this, id, {
      alarmDescription: description,
      metric: queue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 0,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }
}
