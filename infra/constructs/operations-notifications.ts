import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { NagSuppressions } from 'cdk-nag';
import type { ServiceFunction } from './service-function';

/** Options of the operations notifications topic. */
export interface OperationsNotificationsProps {
  /** E-mail address subscribed to the topic (it must confirm the subscription once). */
  email?: string;
}

/**
 * The "operations notifications" SNS topic: business events the operating team acts on,
 * such as a paid physical-SIM order awaiting picking and posting (spec B2). Separate from
 * the alarms topic, so that paging and work queues can be routed differently.
 */
export class OperationsNotifications extends Construct {
  readonly topic: Topic;

  constructor(scope: Construct, id: string, props: OperationsNotificationsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', { displayName: 'Operations notifications', enforceSSL: true });
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));
    NagSuppressions.addResourceSuppressions(this.topic, [
      {
        id: 'AwsSolutions-SNS2',
        reason:
          'Notifications carry an order id, the buyer name and the shipping address that the team must post to; they go to an e-mail subscription, which cannot use a KMS-encrypted topic anyway. TLS is enforced in transit.',
      },
    ]);
  }

  /** Lets `fn` publish to the topic, whose ARN it reads from OPERATIONS_TOPIC_ARN. */
  allowPublishing(fn: ServiceFunction): void {
    this.topic.grantPublish(fn.role);
    fn.function.addEnvironment('OPERATIONS_TOPIC_ARN', this.topic.topicArn);
  }
}
