import { CfnOutput } from 'aws-cdk-lib';
import { secretPhysicalName } from './constructs/service-secrets';
import { pascalCase } from './pascal-case';
import type { ServiceStack } from './service-stack';

/**
 * The stack's outputs, what an operator reads after a deploy: the API's URL, the table, every
 * queue and its dead-letter queue, each stream consumer's failure queue (its set-aside records),
 * the Secrets Manager names to fill, the dashboard, the
 * alarm, notification and SNS topics, and (with AWS SMS) the configuration set.
 */
export const addStackOutputs = (stack: ServiceStack): void => {
  new CfnOutput(stack, 'ApiUrl', { value: stack.api.api.url, description: 'Base URL of the API (stage included)' });
  new CfnOutput(stack, 'TableName', { value: stack.serviceTable.table.tableName, description: 'The service table' });
  for (const [name, workQueue] of stack.workQueues) {
    new CfnOutput(stack, `${pascalCase(name)}QueueUrl`, { value: workQueue.queue.queueUrl, description: `The ${name} queue` });
    new CfnOutput(stack, `${pascalCase(name)}DeadLetterQueueUrl`, {
      value: workQueue.deadLetterQueue.queueUrl,
      description: `The dead-letter queue of the ${name} queue`,
    });
  }
  for (const [name, streamConsumer] of stack.streamConsumers) {
    new CfnOutput(stack, `${pascalCase(name)}FailureQueueUrl`, {
      value: streamConsumer.failureQueue.queueUrl,
      description: `The failure queue of the ${name} stream consumer: records it set aside, and positions of records whose retries ran out`,
    });
  }
  for (const name of stack.secrets.secrets.keys()) {
    new CfnOutput(stack, `Secret${pascalCase(name.toLowerCase())}`, {
      value: secretPhysicalName(stack.stackName, name),
      description: `Secrets Manager name of ${name}; set its value with put-secret-value`,
    });
  }
  new CfnOutput(stack, 'DashboardName', { value: stack.dashboard.dashboard.dashboardName, description: 'The operations dashboard (CloudWatch)' });
  new CfnOutput(stack, 'AlarmTopicArn', { value: stack.alarms.topic.topicArn, description: 'Operations alarms topic' });
  for (const [topic, consumer] of stack.topicConsumers) {
    new CfnOutput(stack, `${pascalCase(topic)}TopicArn`, { value: consumer.topic.topicArn, description: `The ${topic} SNS topic: ${consumer.definition.description}` });
  }
  if (stack.awsSms) {
    new CfnOutput(stack, 'SmsConfigurationSetName', { value: stack.awsSms.configurationSet.ref, description: 'The AWS End User Messaging configuration set of the SMS' });
  }
  new CfnOutput(stack, 'NotificationTopicArn', {
    value: stack.notifications.topic.topicArn,
    description: 'Operations notifications topic (orders awaiting a person)',
  });
};
