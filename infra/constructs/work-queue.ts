import { Annotations, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AnyPrincipal, ArnPrincipal, Effect, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { failureQueue } from './failure-queue';
import { deadLetterQueueName, visibilityTimeoutSeconds, type QueueDefinition } from '../../shared/topology/queues';

/** Options of one work queue. */
export interface WorkQueueProps {
  definition: QueueDefinition;
  /** Production: the queues are retained when the stack goes. */
  production: boolean;
  /** For a queue `sentByDeployPrincipal`: the one principal (IAM role or user ARN) that may send to it. */
  senderArn?: string;
}

/**
 * One work queue of `queueDefinitions` with its dead-letter queue: the visibility timeout
 * six times the consumer's timeout, the redrive after `maxReceiveCount` receives, SQS
 * managed encryption and TLS-only access on both. The DLQ keeps messages 14 days (the SQS
 * maximum), so an operator has time to look at them and redrive them. A queue whose messages
 * come from outside (`sentByDeployPrincipal`, the operator feed) lets the principal given at
 * deploy send and denies SendMessage to every other principal, this account's included.
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
    const deadLetterQueueOf = `dead-letter queue of the ${definition.name} queue`;
    this.deadLetterQueue = failureQueue(this, deadLetterQueueName(definition), props.production, deadLetterQueueOf);
    this.queue = new Queue(this, definition.name, {
      visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(definition)),
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      removalPolicy,
    });
    if (definition.sentByDeployPrincipal) this.allowOnlySender(props.senderArn);
  }

  /**
   * The queue's policy for a queue fed from outside: SendMessage allowed to `senderArn` alone
   * and denied to every other principal (ArnNotEquals on aws:PrincipalArn, which for an assumed
   * role's session is the role's ARN). Without a sender every SendMessage is denied, and synth
   * warns: the queue takes nothing until the stack is deployed with one.
   */
  private allowOnlySender(senderArn: string | undefined): void {
    const name = this.definition.name;
    if (senderArn) {
      this.queue.addToResourcePolicy(
        new PolicyStatement({
          sid: 'AllowTheConfiguredSender',
          effect: Effect.ALLOW,
          principals: [new ArnPrincipal(senderArn)],
          actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
          resources: [this.queue.queueArn],
        }),
      );
    } else {
      Annotations.of(this).addWarningV2(
        `@sim-service/${name}-no-sender`,
        `The ${name} queue accepts no message: deploy with -c feedPrincipalArn=<the IAM role or user ARN of the operator's systems> (docs/deploy.md).`,
      );
    }
    this.queue.addToResourcePolicy(
      new PolicyStatement({
        sid: 'DenyEveryOtherSender',
        effect: Effect.DENY,
        principals: [new AnyPrincipal()],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        ...(senderArn ? { conditions: { ArnNotEquals: { 'aws:PrincipalArn': senderArn } } } : {}),
      }),
    );
  }
}
