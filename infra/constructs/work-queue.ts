import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { NagSuppressions } from 'cdk-nag';
import { deadLetterQueueName, visibilityTimeoutSeconds, type QueueDefinition } from '../../shared/topology/queues';

/** Options of one work queue. */
export interface WorkQueueProps {
  definition: QueueDefinition;
  /** Production: the queues are retained when the stack goes. */
  production: boolean;
}

/**
 * One work queue of `queueDefinitions` with its dead-letter queue: the visibility timeout
 * six times the consumer's timeout, the redrive after `maxReceiveCount` receives, SQS
 * managed encryption and TLS-only access on both. The DLQ keeps messages 14 days (the SQS
 * maximum), so an operator has time to look at them and redrive them.
 */
export class WorkQueue extends Construct {
  readonly definition: QueueDefinition;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;

  constructor(scope: Construct, id: string, props: WorkQueueProps) {
    super(scope, id);
    const { definition } = props;
    const removalPolicy = props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    this.definition = definition;
    this.deadLetterQueue = new Queue(this, deadLetterQueueName(definition), {
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy,
    });
    this.queue = new Queue(this, definition.name, {
      visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(definition)),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      removalPolicy,
    });
    NagSuppressions.addResourceSuppressions(this.deadLetterQueue, [
      {
        id: 'AwsSolutions-SQS3',
        reason: `This queue is itself the dead-letter queue of the ${definition.name} queue; it is watched by a CloudWatch alarm instead.`,
      },
    ]);
  }
}
