import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { NagSuppressions } from 'cdk-nag';

/**
 * A queue where what failed is kept for an operator: 14 days (the SQS maximum), SQS managed
 * encryption, TLS only, retained in production. It is itself the end of the line, so it
 * has no dead-letter queue of its own (cdk-nag's SQS3, suppressed saying it is `whatItIs`); a
 * CloudWatch alarm watches it instead.
 */
export const failureQueue = (scope: Construct, id: string, production: boolean, whatItIs: string): Queue => {
  const queue = new Queue(scope, id, {
    retentionPeriod: Duration.days(14),
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    removalPolicy: production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
  });
  NagSuppressions.addResourceSuppressions(queue, [
    { id: 'AwsSolutions-SQS3', reason: `This queue is itself the ${whatItIs}; it is watched by a CloudWatch alarm instead.` },
  ]);
  return queue;
};
