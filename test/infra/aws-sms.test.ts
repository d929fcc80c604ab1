import { Match } from 'aws-cdk-lib/assertions';
import type { CfnResource as CdkCfnResource } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicConsumers } from '../../shared/topology/topics';
import { functionConfigs, lambdaRuntimeVariables, type FunctionName } from '../../shared/config/function-config';
import { requiredVariables } from '../../shared/config/variables';
import { synthesise, type Synthesised } from './synth';
import { actionsOn, allActions, dependencyCycle, environmentOf, idsOfType, referencedIds, roleStatements } from './template-queries';

/**
 * Issue #21, the stack with `-c smsProvider=aws` (and two-way SMS): the configuration set and
 * its SNS event destination, the encrypted topics and the keys that let the SMS service publish,
 * the subscribed consumers with their dead-letter queues and alarms, and IAM: SendTextMessage on
 * the configured origination identity and configuration set only.
 */

const logicalId = (synthesised: Synthesised, construct: { node: { defaultChild?: unknown } }): string =>
  synthesised.stack.getLogicalId(construct.node.defaultChild as CdkCfnResource);

const expectNagClean = (synthesised: Synthesised) => {
  const nag = Match.stringLikeRegexp('AwsSolutions-.*');
  const findings = [...synthesised.annotations.findError('*', nag), ...synthesised.annotations.findWarning('*', nag)].map(
    (finding) => `${finding.id}: ${String(finding.entry.data).split('\n')[0]}`,
  );
  expect(findings).toEqual([]);
};

const identity = 'phone-0123456789abcdef0123456789abcdef';
const identityArn = (region: unknown = { Ref: 'AWS::Region' }) => ({
  'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sms-voice:', region, ':', { Ref: 'AWS::AccountId' }, `:phone-number/${identity}`]],
});

describe('the stack with SMS through AWS End User Messaging and two-way SMS', () => {
  let synthesised: Synthesised;
  beforeAll(() => {
    synthesised = synthesise({ stage: 'dev', smsProvider: 'aws', smsOriginationIdentity: identity, smsTwoWay: true, smsPhoneNumberId: 'phone-0123456789abcdef0123456789abcdef' });
  });

  it('creates the configuration set with one SNS event destination for every SMS event, to the sms-events topic', () => {
    const { json, stack } = synthesised;
    const [setId] = idsOfType(json, 'AWS::SMSVOICE::ConfigurationSet');
    const topicId = logicalId(synthesised, stack.topicConsumers.get('sms-events')!.topic);
    expect(json.Resources[setId!]!.Properties).toEqual({
      ConfigurationSetName: 'SimCheckoutService-dev-sms',
      EventDestinations: [
        { EventDestinationName: 'delivery-events', Enabled: true, MatchingEventTypes: ['TEXT_ALL'], SnsDestination: { TopicArn: { Ref: topicId } } },
      ],
    });
    // Created once the topic may be published to (its policy and key exist).
    const dependsOn = (json.Resources[setId!] as { DependsOn?: string[] }).DependsOn ?? [];
    expect(dependsOn).toEqual(expect.arrayContaining([topicId, logicalId(synthesised, stack.topicConsumers.get('sms-events')!.key)]));
  });

  it('encrypts each topic with its own rotated customer-managed key that the SMS service of this account may use, and accepts TLS only', () => {
    const { json, stack } = synthesised;
    expect(idsOfType(json, 'AWS::SNS::Topic').length).toBe(2 + 2); // the two SMS topics, the alarms and the operations notifications
    for (const definition of topicConsumers) {
      const consumer = stack.topicConsumers.get(definition.topic)!;
      const topic = json.Resources[logicalId(synthesised, consumer.topic)]!.Properties!;
      const keyId = logicalId(synthesised, consumer.key);
      expect(referencedIds(topic.KmsMasterKeyId)).toEqual([keyId]);
      const key = json.Resources[keyId]!.Properties!;
      expect(key.EnableKeyRotation).toBe(true);
      expect(key.KeyPolicy.Statement).toContainEqual({
        Sid: 'PublisherUsesTheKey',
        Effect: 'Allow',
        Principal: { Service: 'sms-voice.amazonaws.com' },
        Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        Resource: '*',
        Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } },
      });
    }
  });

  it('lets only the SMS service principal of this account publish to the topics, from the configuration set or the SMS resources of this account and Region, over TLS', () => {
    const { json, stack } = synthesised;
    const arnOf = (resource: string) => ({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sms-voice:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:${resource}`]],
    });
    const sources = new Map([
      // Only this stack's configuration set: another set of the account cannot write delivery events here.
      ['sms-events', arnOf('configuration-set/SimCheckoutService-dev-sms')],
      // The two-way channel of a number (or pool) of this account and Region, as AWS documents it.
      ['sms-inbound', arnOf('*')],
    ]);
    expect([...sources.keys()]).toEqual(topicConsumers.map((definition) => definition.topic));
    for (const definition of topicConsumers) {
      const topicId = logicalId(synthesised, stack.topicConsumers.get(definition.topic)!.topic);
      const policies = idsOfType(json, 'AWS::SNS::TopicPolicy')
        .map((id) => json.Resources[id]!.Properties!)
        .filter((policy) => referencedIds(policy.Topics).includes(topicId));
      expect(policies).toHaveLength(1);
      const statements = policies[0]!.PolicyDocument.Statement as Record<string, unknown>[];
      const allows = statements.filter((statement) => statement.Effect === 'Allow');
      expect(allows).toEqual([
        {
          Sid: 'PublisherOfThisAccountAndSourceOnly',
          Effect: 'Allow',
          Principal: { Service: 'sms-voice.amazonaws.com' },
          Action: 'sns:Publish',
          Resource: { Ref: topicId },
          Condition: {
            StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
            ArnLike: { 'aws:SourceArn': sources.get(definition.topic) },
          },
        },
      ]);
      expect(statements.filter((statement) => statement.Effect === 'Deny')).toEqual([
        expect.objectContaining({ Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]);
    }
  });

  it('subscribes each consumer to its topic, with a dead-letter queue for the subscription and for failed invocations after 2 retries', () => {
    const { json, stack } = synthesised;
    for (const definition of topicConsumers) {
      const consumer = stack.topicConsumers.get(definition.topic)!;
      const topicId = logicalId(synthesised, consumer.topic);
      const fnId = logicalId(synthesised, consumer.consumer.function);
      const queueId = logicalId(synthesised, consumer.failureQueue);
      const subscriptions = idsOfType(json, 'AWS::SNS::Subscription')
        .map((id) => json.Resources[id]!.Properties!)
        .filter((subscription) => referencedIds(subscription.TopicArn).includes(topicId));
      expect(subscriptions).toEqual([
        {
          Protocol: 'lambda',
          TopicArn: { Ref: topicId },
          Endpoint: { 'Fn::GetAtt': [fnId, 'Arn'] },
          RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [queueId, 'Arn'] } },
        },
      ]);
      const invokeConfigs = idsOfType(json, 'AWS::Lambda::EventInvokeConfig').map((id) => json.Resources[id]!.Properties!).filter((config) => referencedIds(config.FunctionName).includes(fnId));
      expect(invokeConfigs).toEqual([
        {
          FunctionName: { Ref: fnId },
          Qualifier: '$LATEST',
          MaximumRetryAttempts: 2,
          MaximumEventAgeInSeconds: 6 * 3600,
          DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
        },
      ]);
      expect(json.Resources[queueId]!.Properties).toMatchObject({ MessageRetentionPeriod: 14 * 24 * 3600, SqsManagedSseEnabled: true });
      // Only SNS invokes the consumer, and only from its own topic.
      const permissions = idsOfType(json, 'AWS::Lambda::Permission').map((id) => json.Resources[id]!.Properties!).filter((permission) => referencedIds(permission.FunctionName).includes(fnId));
      expect(permissions).toEqual([{ Action: 'lambda:InvokeFunction', FunctionName: { 'Fn::GetAtt': [fnId, 'Arn'] }, Principal: 'sns.amazonaws.com', SourceArn: { Ref: topicId } }]);
    }
  });

  it('alarms on each consumer dead-letter queue and on each consumer function', () => {
    const { json, stack } = synthesised;
    const alarms = idsOfType(json, 'AWS::CloudWatch::Alarm').map((id) => json.Resources[id]!.Properties!);
    for (const definition of topicConsumers) {
      const consumer = stack.topicConsumers.get(definition.topic)!;
      const onQueue = alarms.filter((alarm) => referencedIds(alarm.Dimensions).includes(logicalId(synthesised, consumer.failureQueue)));
      expect(onQueue.map((alarm) => [alarm.MetricName, alarm.Threshold, alarm.ComparisonOperator]), definition.consumer.name).toEqual([
        ['ApproximateNumberOfMessagesVisible', 0, 'GreaterThanThreshold'],
      ]);
      const onFunction = alarms.filter((alarm) => referencedIds(alarm.Dimensions).includes(logicalId(synthesised, consumer.consumer.function)));
      expect(onFunction.map((alarm) => alarm.MetricName).sort(), definition.consumer.name).toEqual(['Errors', 'Throttles']);
    }
  });

  it('lets send-sms and fulfil-order call sms-voice:SendTextMessage on the origination identity and the configuration set only, and nobody else', () => {
    const { json, stack } = synthesised;
    const senders = [stack.routeFunctions.get('send-sms')!, stack.consumerFunctions.get('fulfilment')!];
    for (const sender of senders) {
      const statements = roleStatements(json, logicalId(synthesised, sender.role)).filter((statement) => statement.Action.some((action) => action.startsWith('sms-voice:')));
      expect(statements).toEqual([
        {
          Effect: 'Allow',
          Action: ['sms-voice:SendTextMessage'],
          Resource: expect.arrayContaining([
            identityArn(),
            { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sms-voice:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':configuration-set/SimCheckoutService-dev-sms']] },
          ]),
        },
      ]);
      expect(environmentOf(json, logicalId(synthesised, sender.function))).toMatchObject({
        SMS_PROVIDER: 'aws',
        SMS_ORIGINATION_IDENTITY: identity,
        SMS_CONFIGURATION_SET: 'SimCheckoutService-dev-sms',
      });
    }
    const senderRoles = new Set(senders.map((sender) => logicalId(synthesised, sender.role)));
    for (const roleId of idsOfType(json, 'AWS::IAM::Role').filter((id) => !senderRoles.has(id))) {
      const actions = allActions(json, roleId).filter((action) => action === 'sms-voice:SendTextMessage' || action === 'sms-voice:*' || action === '*');
      expect(actions, roleId).toEqual([]);
    }
    for (const sender of senders) {
      const [statement] = roleStatements(json, logicalId(synthesised, sender.role)).filter((candidate) => candidate.Action.includes('sms-voice:SendTextMessage'));
      expect(statement!.Resource).toHaveLength(2);
    }
  });

  it('gives the consumers exactly their access: the events consumer the table and the callbacks queue, the inbound one the table', () => {
    const { json, stack } = synthesised;
    const events = stack.topicConsumers.get('sms-events')!.consumer;
    const inbound = stack.topicConsumers.get('sms-inbound')!.consumer;
    const callbacks = logicalId(synthesised, stack.workQueues.get('callbacks')!.queue);
    expect(actionsOn(json, logicalId(synthesised, events.role), callbacks)).toEqual(expect.arrayContaining(['sqs:SendMessage']));
    expect(actionsOn(json, logicalId(synthesised, inbound.role), callbacks)).toEqual([]);
    expect(Object.keys(environmentOf(json, logicalId(synthesised, events.function)))).toEqual(expect.arrayContaining(['TABLE_NAME', 'CALLBACK_QUEUE_URL']));
    expect(Object.keys(environmentOf(json, logicalId(synthesised, inbound.function)))).toEqual(expect.arrayContaining(['TABLE_NAME']));
  });

  it("points the origination number's two-way channel at the inbound topic through a custom resource, allowed UpdatePhoneNumber on that number only", () => {
    const { json, stack } = synthesised;
    const [resourceId] = idsOfType(json, 'Custom::AWS');
    const properties = json.Resources[resourceId!]!.Properties!;
    // The calls are JSON text inside Fn::Join (the topic ARN is a reference): read them as written.
    const callText = (value: unknown) => JSON.stringify(value).replaceAll('\\"', '"');
    expect(callText(properties.Create)).toContain('"service":"PinpointSMSVoiceV2","action":"UpdatePhoneNumber","parameters":{"PhoneNumberId":"phone-0123456789abcdef0123456789abcdef","TwoWayEnabled":true,"TwoWayChannelArn":"');
    expect(referencedIds(properties.Create)).toContain(logicalId(synthesised, stack.topicConsumers.get('sms-inbound')!.topic));
    expect(callText(properties.Delete)).toContain('"parameters":{"PhoneNumberId":"phone-0123456789abcdef0123456789abcdef","TwoWayEnabled":false}');
    const policies = idsOfType(json, 'AWS::IAM::Policy').map((id) => json.Resources[id]!.Properties!.PolicyDocument.Statement as { Action: unknown }[]).flat();
    expect(policies.filter((statement) => JSON.stringify(statement.Action).includes('sms-voice:UpdatePhoneNumber'))).toEqual([
      { Action: 'sms-voice:UpdatePhoneNumber', Effect: 'Allow', Resource: identityArn() },
    ]);
  });

  it('gives each topic consumer each variable its configuration requires', () => {
    const { json, stack } = synthesised;
    for (const topic of stack.topicConsumers.values()) {
      const name = topic.definition.consumer.name as FunctionName;
      const required = requiredVariables(functionConfigs[name]).filter((variable) => !lambdaRuntimeVariables.includes(variable));
      const environment = environmentOf(json, logicalId(synthesised, topic.consumer.function));
      expect(required.filter((variable) => environment[variable] === undefined), name).toEqual([]);
    }
  });

  it('outputs the topics and the configuration set', () => {
    const outputs = Object.keys(synthesised.json.Outputs ?? {});
    expect(outputs).toEqual(expect.arrayContaining(['SmsEventsTopicArn', 'SmsInboundTopicArn', 'SmsConfigurationSetName']));
  });

  it('has no dependency cycle', () => {
    expect(dependencyCycle(synthesised.json)).toBeUndefined();
  });

  it('passes the cdk-nag AwsSolutions checks with no unsuppressed finding', () => {
    expectNagClean(synthesised);
  });
});

describe('the stack with each SMS feature alone', () => {
  it('has no SMS topic, configuration set or SendTextMessage grant with the default http provider', () => {
    const { json, stack } = synthesise({ stage: 'dev' });
    expect(idsOfType(json, 'AWS::SMSVOICE::ConfigurationSet')).toEqual([]);
    expect(stack.topicConsumers.size).toBe(0);
    expect(JSON.stringify(json)).not.toContain('sms-voice');
  });

  it('with smsProvider aws only: the events topic and its consumer, no inbound topic, no custom resource', () => {
    const synthesised = synthesise({ stage: 'dev', smsProvider: 'aws', smsOriginationIdentity: 'pool-0123456789abcdef' });
    expect([...synthesised.stack.topicConsumers.keys()]).toEqual(['sms-events']);
    expect(idsOfType(synthesised.json, 'Custom::AWS')).toEqual([]);
    const role = logicalId(synthesised, synthesised.stack.routeFunctions.get('send-sms')!.role);
    expect(roleStatements(synthesised.json, role).filter((statement) => statement.Action.includes('sms-voice:SendTextMessage'))[0]!.Resource).toContainEqual({
      'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':sms-voice:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':pool/pool-0123456789abcdef']],
    });
    expectNagClean(synthesised);
  });

  it('with two-way SMS but no number ID: the inbound topic and its consumer, no custom resource (docs/deploy.md says how to point the number)', () => {
    const synthesised = synthesise({ stage: 'dev', smsTwoWay: true });
    expect([...synthesised.stack.topicConsumers.keys()]).toEqual(['sms-inbound']);
    expect(idsOfType(synthesised.json, 'Custom::AWS')).toEqual([]);
    expectNagClean(synthesised);
  });

  it('warns, and grants nothing, when smsProvider is aws without an origination identity; refuses a number given as E.164', () => {
    const synthesised = synthesise({ stage: 'dev', smsProvider: 'aws' });
    const warnings = synthesised.annotations.findWarning('*', Match.stringLikeRegexp('smsOriginationIdentity'));
    expect(warnings.length).toBe(2);
    expect(JSON.stringify(synthesised.json)).not.toContain('sms-voice:SendTextMessage');
    expect(() => synthesise({ stage: 'dev', smsProvider: 'aws', smsOriginationIdentity: '+447700900000' }, 'SimCheckoutService-e164')).toThrow(
      "smsOriginationIdentity +447700900000: give the phone number's ID (phone-...) or ARN, not the number (IAM names a number by its ID)",
    );
  });
});
