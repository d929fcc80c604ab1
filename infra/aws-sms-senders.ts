import { Annotations, type Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { TopicName } from '../shared/topology/topics';
import { AwsSmsChannel, originationIdentityArn, smsConfigurationSetName } from './constructs/aws-sms';
import type { ServiceFunction } from './constructs/service-function';
import type { TopicConsumer } from './constructs/topic-consumer';

/** What configureAwsSms needs of the stack's settings (ServiceStackProps). */
export interface AwsSmsSettings {
  smsOriginationIdentity?: string;
  smsPhoneNumberId?: string;
}

/**
 * AWS End User Messaging SMS (issue #21; docs/deploy.md), with smsProvider aws: the
 * configuration set whose event destination is the `sms-events` topic, and for every function
 * that sends SMS (send-sms, fulfil-order) SMS_PROVIDER, SMS_ORIGINATION_IDENTITY and
 * SMS_CONFIGURATION_SET and leave to call sms-voice:SendTextMessage on that origination
 * identity and configuration set only. With smsTwoWay and smsPhoneNumberId, the number's two-way
 * channel is pointed at the `sms-inbound` topic. Without an origination identity synth warns and
 * the functions answer sms_not_configured. Undefined when the `sms-events` topic is not deployed.
 */
export const configureAwsSms = (
  stack: Stack,
  topicConsumers: ReadonlyMap<TopicName, TopicConsumer>,
  settings: AwsSmsSettings,
  senders: ServiceFunction[],
): AwsSmsChannel | undefined => {
  const events = topicConsumers.get('sms-events');
  const inbound = topicConsumers.get('sms-inbound');
  if (settings.smsPhoneNumberId && !inbound) throw new Error('smsPhoneNumberId needs smsTwoWay=true');
  if (!events) return undefined;
  const configurationSetName = smsConfigurationSetName(stack);
  const channel = new AwsSmsChannel(stack, 'AwsSms', {
    configurationSetName,
    eventsTopic: events.topic,
    eventsTopicDependencies: [events.topic, events.key],
    ...(inbound && settings.smsPhoneNumberId
      ? { twoWay: { phoneNumberId: settings.smsPhoneNumberId, inboundTopic: inbound.topic, dependencies: [inbound.topic, inbound.key] } }
      : {}),
  });
  const identity = settings.smsOriginationIdentity;
  for (const sender of senders) {
    sender.function.addEnvironment('SMS_PROVIDER', 'aws');
    sender.function.addEnvironment('SMS_CONFIGURATION_SET', configurationSetName);
    if (!identity) {
      Annotations.of(sender).addWarningV2(
        'service:sms-origination-identity-missing',
        'smsProvider=aws without smsOriginationIdentity: this function answers sms_not_configured until the stack is deployed with -c smsOriginationIdentity=...',
      );
      continue;
    }
    sender.function.addEnvironment('SMS_ORIGINATION_IDENTITY', identity);
    sender.role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['sms-voice:SendTextMessage'],
        resources: [originationIdentityArn(stack, identity), channel.configurationSetArn],
      }),
    );
  }
  return channel;
};
