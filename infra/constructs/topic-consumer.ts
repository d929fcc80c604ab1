import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { LambdaSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { TopicConsumerDefinition } from '../../shared/topology/topics';
import { smsConfigurationSetArn, smsResourcesOfThisAccountArn } from './aws-sms';
import type { ServiceFunction } from './service-function';
import { consumerFunction, type ConsumerDeployment } from './consumer-function';
import { failureQueue } from './failure-queue';

/** Options of one topic consumer. */
export interface TopicConsumerProps extends ConsumerDeployment {
  definition: TopicConsumerDefinition;
}

/**
 * One SNS topic of shared/topology/topics.ts and the function subscribed to it:
 * - the topic, encrypted with a customer-managed KMS key of its own (rotated yearly) whose
 *   policy lets the publishing service (`definition.publisher`, for this account only) use it:
 *   the AWS managed SNS key cannot be used by AWS End User Messaging; TLS only;
 * - a topic policy that lets that service principal publish for this account only
 *   (`aws:SourceAccount`) and from its resources that publish to this topic only
 *   (`aws:SourceArn`, `definition.publishedBy`: the stack's configuration set, or the SMS
 *   resources of this account and Region for a two-way channel), and nobody else: without the
 *   source, any configuration set or number of the account, someone else's stack's included,
 *   could write delivery events or inbound messages into this service;
 * - the consumer function (its definition's access, nothing more), subscribed to the topic;
 *   Lambda retries a failed invocation `retryAttempts` times, then sends it to the failure
 *   queue (an on-failure destination), which is also the subscription's dead-letter queue for
 *   messages SNS could not hand to Lambda at all (14 days, encrypted, TLS only). The stack
 *   alarms on the queue and on the function's errors.
 */
export class TopicConsumer extends Construct {
  readonly definition: TopicConsumerDefinition;
  readonly topic: Topic;
  readonly key: Key;
  readonly consumer: ServiceFunction;
  readonly failureQueue: Queue;

  constructor(scope: Construct, id: string, props: TopicConsumerProps) {
    super(scope, id);
    const { definition, ...deployment } = props;
    this.definition = definition;
    const account = Stack.of(this).account;
    const publisher = new ServicePrincipal(definition.publisher);
    const removalPolicy = props.production ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    this.key = new Key(this, 'Key', {
      description: `Encrypts the ${definition.topic} SNS topic (${definition.description})`,
      enableKeyRotation: true,
      removalPolicy,
    });
    this.key.addToResourcePolicy(
      new PolicyStatement({
        sid: 'PublisherUsesTheKey',
        principals: [publisher],
        actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': account } },
      }),
    );
    this.topic = new Topic(this, 'Topic', { displayName: definition.description, masterKey: this.key, enforceSSL: true });
    const source = definition.publishedBy === 'configurationSet' ? smsConfigurationSetArn(Stack.of(this)) : smsResourcesOfThisAccountArn(Stack.of(this));
    this.topic.addToResourcePolicy(
      new PolicyStatement({
        sid: 'PublisherOfThisAccountAndSourceOnly',
        principals: [publisher],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': account }, ArnLike: { 'aws:SourceArn': source } },
      }),
    );

    this.consumer = consumerFunction(this, deployment, {
      name: definition.consumer.name,
      handler: definition.consumer.handler,
      access: definition.access,
      timeoutSeconds: definition.timeoutSeconds,
      description: `consumer of the ${definition.topic} SNS topic (${definition.consumer.name})`,
    });
    this.failureQueue = failureQueue(
      this,
      'Failures',
      props.production,
      `dead-letter queue (on-failure destination and subscription DLQ) of the ${definition.consumer.name} consumer`,
    );
    this.consumer.function.configureAsyncInvoke({
      retryAttempts: definition.retryAttempts,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(this.failureQueue),
    });
    this.topic.addSubscription(new LambdaSubscription(this.consumer.function, { deadLetterQueue: this.failureQueue }));
  }
}
