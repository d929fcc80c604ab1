import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NagSuppressions } from 'cdk-nag';
import type { StreamConsumerDefinition } from '../../shared/topology/streams';
import { ServiceFunction, type ServiceResources } from './service-function';

/** Options of one stream consumer. */
export interface StreamConsumerProps {
  definition: StreamConsumerDefinition;
  projectRoot: string;
  resources: ServiceResources;
  memoryMb: number;
  production: boolean;
  /** Environment beside what the function's access gives (LOG_LEVEL and the Powertools names). */
  environment?: Record<string, string>;
}

/**
 * One consumer of the table's DynamoDB stream (shared/topology/streams.ts): its function (the
 * access of its definition, plus read on the stream, which the event source grants), an event
 * source mapping that hands it only records whose new image has one of its item `type`s
 * (event filtering: the rate-limit writes of every request never invoke it), in batches, with
 * ReportBatchItemFailures, bisection of a failing batch and a bounded number of retries, after
 * which the failed records' positions go to a failure queue (14 days, watched by an alarm).
 */
export class StreamConsumer extends Construct {
  readonly consumer: ServiceFunction;
  readonly failureQueue: Queue;

  constructor(scope: Construct, id: string, props: StreamConsumerProps) {
    super(scope, id);
    const { definition } = props;
    this.consumer = new ServiceFunction(this, 'Consumer', {
      name: definition.name,
      projectRoot: props.projectRoot,
      handler: definition.handler,
      access: definition.access,
      timeoutSeconds: definition.timeoutSeconds,
      memoryMb: props.memoryMb,
      description: `consumer of the table's stream (${definition.name})`,
      resources: props.resources,
      production: props.production,
      ...(props.environment ? { environment: props.environment } : {}),
    });
    this.failureQueue = new Queue(this, 'Failures', {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    NagSuppressions.addResourceSuppressions(this.failureQueue, [
      {
        id: 'AwsSolutions-SQS3',
        reason: `This queue is itself the on-failure destination of the ${definition.name} stream consumer; it is watched by a CloudWatch alarm instead.`,
      },
    ]);
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
