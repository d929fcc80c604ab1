import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NagSuppressions } from 'cdk-nag';
import type { StreamConsumerDefinition } from '../../shared/topology/streams';
import type { ServiceFunction } from './service-function';
import { consumerFunction, type ConsumerDeployment } from './consumer-function';
import { failureQueue } from './failure-queue';

/** Options of one stream consumer. */
export interface StreamConsumerProps extends ConsumerDeployment {
  definition: StreamConsumerDefinition;
}

/**
 * One consumer of the table's DynamoDB stream (shared/topology/streams.ts): its function (the
 * access of its definition, plus read on the stream, which the event source grants), an event
 * source mapping that hands it only records whose new image has one of its item `type`s
 * (event filtering: the rate-limit writes of every request never invoke it), in batches, with
 * ReportBatchItemFailures, bisection of a failing batch and a bounded number of retries, after
 * which the failed records' positions go to a failure queue (14 days, watched by an alarm).
 *
 * The consumer itself sets aside on that queue, at once, every record it cannot process
 * (its URL is in the function's configuration: `failureQueueUrlVariable`), so a batch fails
 * only on an outage or when the function itself fails (its timeout, its memory): what the
 * retries and bisection are for. No maximum record age is set: it would also drop records that
 * never failed but waited longer than it behind a bulk load (docs/operations.md, "Stream
 * records set aside", gives the worst cases).
 */
export class StreamConsumer extends Construct {
  readonly consumer: ServiceFunction;
  readonly failureQueue: Queue;

  constructor(scope: Construct, id: string, props: StreamConsumerProps) {
    super(scope, id);
    const { definition, ...deployment } = props;
    this.failureQueue = failureQueue(this, 'Failures', props.production, `on-failure destination of the ${definition.name} stream consumer`);
    // The consumer sets aside a record it cannot process on the same queue (shared/queues/stream-failures.ts):
    // its URL in the function's configuration, and sqs:SendMessage on it (below).
    deployment.environment = { ...deployment.environment, [definition.failureQueueUrlVariable]: this.failureQueue.queueUrl };
    this.consumer = consumerFunction(this, deployment, {
      name: definition.name,
      handler: definition.handler,
      access: definition.access,
      timeoutSeconds: definition.timeoutSeconds,
      description: `consumer of the table's stream (${definition.name})`,
    });
    // The same statement the on-failure destination needs (the event source mapping sends as the function's role).
    this.failureQueue.grantSendMessages(this.consumer.role);
    NagSuppressions.addResourceSuppressions(
      this.consumer.role,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'dynamodb:ListStreams, which the DynamoDB event source mapping needs, supports no resource-level permission (it is granted on *); GetRecords, GetShardIterator and DescribeStream are granted on this table\'s stream only.',
          appliesTo: ['Resource::*'],
        },
      ],
      true,
    );
    this.consumer.function.addEventSource(
      new DynamoEventSource(props.resources.table as ITable, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize: definition.batchSize,
        bisectBatchOnError: true,
        retryAttempts: definition.retryAttempts,
        reportBatchItemFailures: true,
        onFailure: new SqsDlq(this.failureQueue),
        // A record passes when its new image (puts, changes) or its old image (removals) is of one of the types.
        filters: [
          FilterCriteria.filter({ dynamodb: { NewImage: { type: { S: FilterRule.or(...definition.itemTypes) } } } }),
          FilterCriteria.filter({ dynamodb: { OldImage: { type: { S: FilterRule.or(...definition.itemTypes) } } } }),
        ],
      }),
    );
  }
}
