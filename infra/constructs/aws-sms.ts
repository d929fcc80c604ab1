import { ArnFormat, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { CfnConfigurationSet } from 'aws-cdk-lib/aws-smsvoice';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from 'aws-cdk-lib/custom-resources';
import { Construct, type IConstruct } from 'constructs';
import { NagSuppressions } from 'cdk-nag';

/**
 * The IAM resource ARNs of an origination identity as SMS_ORIGINATION_IDENTITY names it: an ARN
 * as it is; a phone number ID (`phone-...`) or a pool ID (`pool-...`) as its ARN; anything else
 * is a sender ID, whose ARN also names a country (`sender-id/<id>/<country>`), hence every
 * country of that one sender ID. A phone number in E.164 is refused: IAM names numbers by ID.
 */
export const originationIdentityArn = (stack: Stack, identity: string): string => {
  if (identity.startsWith('arn:')) return identity;
  if (identity.startsWith('+')) {
    throw new Error(`smsOriginationIdentity ${identity}: give the phone number's ID (phone-...) or ARN, not the number (IAM names a number by its ID)`);
  }
  const arn = (resource: string, resourceName: string) =>
    stack.formatArn({ service: 'sms-voice', resource, resourceName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
  if (/^phone-[0-9a-z]+$/i.test(identity)) return arn('phone-number', identity);
  if (/^pool-[0-9a-z]+$/i.test(identity)) return arn('pool', identity);
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(identity)) throw new Error(`smsOriginationIdentity ${identity} is not a phone number ID, pool ID, sender ID or ARN`);
  return arn('sender-id', `${identity}/*`);
};

/**
 * The name of the stack's configuration set (SMS_CONFIGURATION_SET of the sending functions):
 * one per stack, so the `sms-events` topic's policy can name it before it exists.
 */
export const smsConfigurationSetName = (stack: Stack): string => `${stack.stackName}-sms`;

/** The ARN of the stack's configuration set: the `aws:SourceArn` of its event destination's messages. */
export const smsConfigurationSetArn = (stack: Stack): string =>
  stack.formatArn({ service: 'sms-voice', resource: 'configuration-set', resourceName: smsConfigurationSetName(stack), arnFormat: ArnFormat.SLASH_RESOURCE_NAME });

/**
 * Every End User Messaging SMS resource of the stack's account and Region
 * (`arn:<partition>:sms-voice:<region>:<account>:*`): the `aws:SourceArn` AWS documents for the
 * messages of a two-way channel ("Topic policies for Amazon SNS topics", AWS End User Messaging
 * SMS User Guide). Not narrower: the two-way channel may be set on a phone number or on a pool,
 * by this stack or by hand (docs/deploy.md), and AWS does not document which resource's ARN its
 * messages carry, so a narrower guess could refuse every inbound SMS, and silently.
 */
export const smsResourcesOfThisAccountArn = (stack: Stack): string =>
  stack.formatArn({ service: 'sms-voice', resource: '*', arnFormat: ArnFormat.NO_RESOURCE_NAME });

/** Options of the AWS End User Messaging SMS resources. */
export interface AwsSmsChannelProps {
  /** Name of the configuration set (SMS_CONFIGURATION_SET of the sending functions). */
  configurationSetName: string;
  /** The `sms-events` topic: the configuration set's event destination. */
  eventsTopic: ITopic;
  /** What must exist before the destination is created: the topic's policy and key (the service checks it may publish). */
  eventsTopicDependencies: IConstruct[];
  /** With two-way SMS and `-c smsPhoneNumberId=...`: the number whose two-way channel is pointed at `inboundTopic`. */
  twoWay?: { phoneNumberId: string; inboundTopic: ITopic; dependencies: IConstruct[] };
}

/**
 * The AWS End User Messaging SMS resources of the stack (issue #21): the configuration set with
 * one SNS event destination for every SMS event (`TEXT_ALL`: delivery events, final or not) to
 * the `sms-events` topic; and, when given the origination number's ID, a custom resource that
 * turns on its two-way channel to the `sms-inbound` topic (UpdatePhoneNumber; switched off
 * again when the stack goes). Without the ID, docs/deploy.md says how to point it by hand.
 */
export class AwsSmsChannel extends Construct {
  readonly configurationSet: CfnConfigurationSet;
  readonly configurationSetArn: string;

  constructor(scope: Construct, id: string, props: AwsSmsChannelProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.configurationSet = new CfnConfigurationSet(this, 'ConfigurationSet', {
      configurationSetName: props.configurationSetName,
      eventDestinations: [
        {
          eventDestinationName: 'delivery-events',
          enabled: true,
          matchingEventTypes: ['TEXT_ALL'],
          snsDestination: { topicArn: props.eventsTopic.topicArn },
        },
      ],
    });
    for (const dependency of props.eventsTopicDependencies) this.configurationSet.node.addDependency(dependency);
    this.configurationSetArn = stack.formatArn({
      service: 'sms-voice',
      resource: 'configuration-set',
      resourceName: props.configurationSetName,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });

    if (props.twoWay) {
      const { phoneNumberId, inboundTopic } = props.twoWay;
      const call = (enabled: boolean) => ({
        service: 'PinpointSMSVoiceV2',
        action: 'UpdatePhoneNumber',
        parameters: { PhoneNumberId: phoneNumberId, TwoWayEnabled: enabled, ...(enabled ? { TwoWayChannelArn: inboundTopic.topicArn } : {}) },
        physicalResourceId: PhysicalResourceId.of(`two-way-${phoneNumberId}`),
      });
      const twoWay = new AwsCustomResource(this, 'TwoWayChannel', {
        onCreate: call(true),
        onUpdate: call(true),
        onDelete: call(false),
        policy: AwsCustomResourcePolicy.fromStatements([
          new PolicyStatement({
            actions: ['sms-voice:UpdatePhoneNumber'],
            resources: [stack.formatArn({ service: 'sms-voice', resource: 'phone-number', resourceName: phoneNumberId, arnFormat: ArnFormat.SLASH_RESOURCE_NAME })],
          }),
        ]),
        installLatestAwsSdk: false,
      });
      for (const dependency of props.twoWay.dependencies) twoWay.node.addDependency(dependency);
      // The provider function of AwsCustomResource is a singleton of the stack, outside this construct.
      NagSuppressions.addStackSuppressions(stack, [
        { id: 'AwsSolutions-IAM4', reason: "The AwsCustomResource provider function (two-way channel of the SMS number) uses AWS's basic Lambda execution policy for its own logs; CDK does not let it take another.", appliesTo: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'] },
        { id: 'AwsSolutions-L1', reason: 'The AwsCustomResource provider function (two-way channel of the SMS number) runs on the runtime CDK chooses for it; it runs only at deploy time.' },
      ]);
    }
  }
}
