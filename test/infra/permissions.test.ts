import type { CfnElement } from 'aws-cdk-lib';
import { CfnRole } from 'aws-cdk-lib/aws-iam';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smsConfigurationSetName } from '../../infra/constructs/aws-sms';
import type { ServiceFunction } from '../../infra/constructs/service-function';
import { grantedUnrecorded, notExercised, rolesOfNoFunction, type GrantedUnrecorded, type GrantTarget } from '../../infra/granted-unrecorded';
import type { ServiceStack, ServiceStackProps } from '../../infra/service-stack';
import { recordAwsCalls, type AwsCall, type AwsResource } from '../../local/aws-call-recorder';
import { demoAwsSms } from '../../local/aws-sms-emulator';
import type { LocalRuntime } from '../../local/runtime';
import { queueDefinitions } from '../../shared/topology/queues';
import { allRoutes, type RouteAccess } from '../../shared/topology/routes';
import { streamConsumers } from '../../shared/topology/streams';
import { schedules } from '../../shared/topology/schedules';
import { topicConsumers } from '../../shared/topology/topics';
import { startTestRuntime } from '../support/runtime';
import { startSesSnsStandIn, type SesSnsStandIn } from '../support/ses-sns-stand-in';
import { allows, arn, patternMatches, referenceValue, resolvedRoleStatements } from './iam-policy';
import { demoSeed, driveEveryFunction } from './support/every-function';
import { synthesise } from './synth';

/**
 * Issue #32, point 6: the functions' permissions proven by running them. Every function is
 * driven through its door in one local runtime (./support/every-function.ts) while the runtime
 * records each AWS action it calls, on what (local/aws-call-recorder.ts). Then, for every
 * context combination docs/deploy.md names, the stack is synthesised and each function's role
 * must allow every action the function called on the resource it called it on, and every
 * action the role grants must have been called or be listed, with its reason, in the reviewed
 * file infra/granted-unrecorded.ts (docs/deploy.md, "Permissions proven by the tests").
 */

const emailFrom = 'Shop <orders@shop.example.net>';
const operationsTopicArn = arn('sns', 'operations-notifications');
const identity = demoAwsSms.originationIdentity;
const feedPrincipalArn = 'arn:aws:iam::123456789012:role/operator-mediation';

/**
 * The context combinations of docs/deploy.md: none; the values that change what a role holds
 * (smsProvider with and without smsOriginationIdentity, smsTwoWay, emailFrom), each without the
 * others' grants; and every value together in production. (A role in a combination is the same
 * role as in production with everything, less the grants of the features it lacks: five
 * synthesised stacks cover what the 2^n combinations would, at a second of CPU each.)
 */
const combinations: Array<[string, ServiceStackProps]> = [
  ['dev, no context', { stage: 'dev' }],
  ['smsProvider=aws without smsOriginationIdentity, smsTwoWay', { stage: 'dev', smsProvider: 'aws', smsTwoWay: true }],
  ['smsProvider=aws', { stage: 'dev', smsProvider: 'aws', smsOriginationIdentity: identity }],
  ['emailFrom, operationsEmail, feedPrincipalArn', { stage: 'dev', emailFrom, operationsEmail: 'ops@shop.example.net', feedPrincipalArn }],
  [
    'stage=production with every context value',
    {
      stage: 'production',
      smsProviderUrl: 'https://sms.example.net/v1',
      publicBaseUrl: 'https://api.shop.example.net',
      tracing: false,
      alarmEmail: 'oncall@shop.example.net',
      logLevel: 'WARN',
      emailFrom,
      emailIdentity: 'shop.example.net',
      operationsEmail: 'ops@shop.example.net',
      smsProvider: 'aws',
      smsOriginationIdentity: identity,
      smsTwoWay: true,
      smsPhoneNumberId: identity,
      feedPrincipalArn,
    },
  ],
];

/**
 * Whether a deployment of `props` makes a call the recording run made: the run has every
 * feature on (SMS through AWS, e-mail through SES), a deployment only those of its context.
 */
const madeWith = (props: ServiceStackProps, call: AwsCall): boolean => {
  // With smsProvider=http the SMS go to the provider's HTTP API; without an origination identity sending answers sms_not_configured.
  if (call.action.startsWith('sms-voice:')) return props.smsProvider === 'aws' && props.smsOriginationIdentity !== undefined;
  // Without emailFrom no function has EMAIL_FROM: fulfilment cannot send e-mail (docs/deploy.md).
  if (call.action.startsWith('ses:')) return props.emailFrom !== undefined;
  return true;
};

/** One function of a synthesised stack with what the reviewed file's entries name. */
interface DeployedFunction {
  name: string;
  kind: 'route' | 'queue consumer' | 'stream consumer' | 'topic consumer' | 'scheduled function';
  access: RouteAccess;
  roleId: string;
  logGroupId: string;
  /** A queue consumer's work queue. */
  queueId?: string;
  /** A stream or topic consumer's failure queue. */
  failureQueueId?: string;
}

const logicalId = (stack: ServiceStack, construct: { node: { defaultChild?: unknown } }): string =>
  stack.getLogicalId(construct.node.defaultChild as CfnElement);

/** Every function of the stack: routes, queue, stream and topic consumers, scheduled functions. */
const deployedFunctions = (stack: ServiceStack): DeployedFunction[] => {
  const entry = (name: string, kind: DeployedFunction['kind'], access: RouteAccess, fn: ServiceFunction, queues: Partial<DeployedFunction> = {}) => ({
    name,
    kind,
    access,
    roleId: logicalId(stack, fn.role),
    logGroupId: logicalId(stack, fn.logGroup),
    ...queues,
  });
  return [
    ...allRoutes().map((route) => entry(route.name, 'route', route.access, stack.routeFunctions.get(route.name)!)),
    ...queueDefinitions.map((queue) =>
      entry(queue.consumer.name, 'queue consumer', queue.access, stack.consumerFunctions.get(queue.name)!, {
        queueId: logicalId(stack, stack.workQueues.get(queue.name)!.queue),
      }),
    ),
    ...streamConsumers.map((consumer) => {
      const deployed = stack.streamConsumers.get(consumer.name)!;
      return entry(consumer.name, 'stream consumer', consumer.access, deployed.consumer, { failureQueueId: logicalId(stack, deployed.failureQueue) });
    }),
    ...[...stack.topicConsumers.values()].map((deployed) =>
      entry(deployed.definition.consumer.name, 'topic consumer', deployed.definition.access, deployed.consumer, {
        failureQueueId: logicalId(stack, deployed.failureQueue),
      }),
    ),
    ...schedules.map((schedule) => entry(schedule.name, 'scheduled function', schedule.access, stack.scheduledFunctions.get(schedule.name)!)),
  ];
};

/** Whether an entry of the reviewed file is about a function. */
const isGrantee = (entry: GrantedUnrecorded, fn: DeployedFunction): boolean => {
  const { grantees } = entry;
  if (grantees === 'every function') return true;
  if (grantees === 'queue consumers') return fn.kind === 'queue consumer';
  if (grantees === 'stream consumers') return fn.kind === 'stream consumer';
  if (grantees === 'topic consumers') return fn.kind === 'topic consumer';
  if ('tableAccess' in grantees) return fn.access.table === grantees.tableAccess;
  return grantees.functions.includes(fn.name);
};

const everyFunctionName = [
  ...allRoutes().map((route) => route.name),
  ...queueDefinitions.map((queue) => queue.consumer.name),
  ...streamConsumers.map((consumer) => consumer.name),
  ...topicConsumers.map((topic) => topic.consumer.name),
  ...schedules.map((schedule) => schedule.name),
];

describe("every function's role allows what it calls and grants nothing that is neither called nor explained", () => {
  let standIn: SesSnsStandIn;
  let runtime: LocalRuntime;
  let calls: AwsCall[];
  let invoked: string[];
  beforeAll(async () => {
    standIn = await startSesSnsStandIn();
    const recording = recordAwsCalls();
    try {
      runtime = await startTestRuntime({
        seed: demoSeed,
        emailThroughSes: true,
        env: {
          SMS_PROVIDER: 'aws',
          // The final delivery event waits, so that a receipt can reach the provider's receipt route first.
          SMS_SIMULATOR_DELAY_MS: '1500',
          WEBHOOK_RETRY_SCHEDULE_SECONDS: '1',
          EMAIL_FROM: emailFrom,
          OPERATIONS_TOPIC_ARN: operationsTopicArn,
          AWS_ENDPOINT_URL_SESV2: standIn.url,
          AWS_ENDPOINT_URL_SNS: standIn.url,
        },
      });
      await driveEveryFunction(runtime, standIn);
      calls = recording.calls();
      invoked = recording.invoked();
      // PERMISSIONS_PRINT_CALLS=1: what each function called, for a reviewer of infra/granted-unrecorded.ts.
      if (process.env.PERMISSIONS_PRINT_CALLS) for (const call of calls) console.log(`${call.function}: ${call.action} ${JSON.stringify(call.resource)}`);
    } finally {
      recording.stop();
    }
  }, 120_000);
  afterAll(async () => {
    await runtime?.stop();
    await standIn?.stop();
  });

  it('records the calls of every AWS SDK client the functions use', () => {
    // The recorder wraps `send` of the one client class they all extend (@smithy/core's Client).
    const base = Object.getPrototypeOf(SQSClient.prototype) as object;
    const clients = [DynamoDBClient, DynamoDBDocumentClient, SQSClient, SNSClient, SESv2Client, PinpointSMSVoiceV2Client];
    expect(clients.filter((client) => Object.getPrototypeOf(client.prototype) !== base).map((client) => client.name)).toEqual([]);
  });

  it('drives every function of the route, queue, stream, topic and schedule tables', () => {
    const skipped = notExercised.map((entry) => entry.function);
    expect(everyFunctionName.filter((name) => !invoked.includes(name) && !skipped.includes(name))).toEqual([]);
    expect(skipped.filter((name) => invoked.includes(name))).toEqual([]);
  });

  it('for every context combination: each role allows what its function called, and each grant was called or is listed with its reason', () => {
    const problems: string[] = [];
    const usedEntries = new Set<GrantedUnrecorded>();
    const usedRoles = new Set<string>();
    for (const [combination, props] of combinations) {
      const { stack, json } = synthesise(props, `SimCheckoutService-${props.stage}`, { checks: false });
      const functions = deployedFunctions(stack);
      const tableId = logicalId(stack, stack.serviceTable.table);
      const queueIds = new Map<string, string>();
      for (const queue of queueDefinitions) {
        queueIds.set(runtime.queues[queue.name].url, logicalId(stack, stack.workQueues.get(queue.name)!.queue));
        queueIds.set(runtime.queues[queue.name].deadLetterUrl, logicalId(stack, stack.workQueues.get(queue.name)!.deadLetterQueue));
      }
      for (const consumer of streamConsumers) queueIds.set(runtime.streamFailureQueues[consumer.name]!, logicalId(stack, stack.streamConsumers.get(consumer.name)!.failureQueue));
      for (const [topic, deployed] of stack.topicConsumers) queueIds.set(runtime.topics.deadLetterUrls[topic], logicalId(stack, deployed.failureQueue));

      /** The ARN in the stack of what the local runtime called. */
      const arnOf = (resource: AwsResource): string => {
        if (resource.type === 'table') {
          if (resource.table !== runtime.tableName) throw new Error(`a table the stack does not have: ${resource.table}`);
          return `${referenceValue(json, tableId, 'Arn')}${resource.index ? `/index/${resource.index}` : ''}`;
        }
        if (resource.type === 'queue') {
          const queueId = queueIds.get(resource.url);
          if (!queueId) throw new Error(`a queue the stack does not have: ${resource.url}`);
          return referenceValue(json, queueId, 'Arn');
        }
        if (resource.type === 'topic') {
          if (resource.arn !== operationsTopicArn) throw new Error(`a topic the stack does not have: ${resource.arn}`);
          return referenceValue(json, logicalId(stack, stack.notifications.topic));
        }
        if (resource.type === 'secret') return referenceValue(json, logicalId(stack, stack.secrets.get(resource.name)));
        if (resource.type === 'sms-origination-identity') return arn('sms-voice', `phone-number/${resource.identity}`);
        if (resource.type === 'sms-configuration-set') {
          if (resource.name !== demoAwsSms.configurationSet) throw new Error(`a configuration set the stack does not have: ${resource.name}`);
          return arn('sms-voice', `configuration-set/${smsConfigurationSetName(stack)}`);
        }
        // SES checks a send against the verified identity: the domain of the sender (docs/deploy.md verifies the domain).
        return arn('ses', `identity/${resource.address.split('@')[1]}`);
      };
      /** The resource family (iam-policy.ts) of an entry's target, for a function. */
      const targetOf = (on: GrantTarget, fn: DeployedFunction): string | undefined => {
        if (on === 'its log group') return `${fn.logGroupId}.Arn`;
        if (on === 'any resource (*)') return '*';
        if (on === 'its queue') return fn.queueId && `${fn.queueId}.Arn`;
        if (on === 'its failure queue') return fn.failureQueueId && `${fn.failureQueueId}.Arn`;
        if (on === 'the table stream') return `${tableId}.StreamArn`;
        if (on === 'the table') return `${tableId}.Arn`;
        return `${logicalId(stack, stack.secrets.get(on.secret))}.Ref`;
      };

      const deployedCalls = calls
        .filter((call) => functions.some((fn) => fn.name === call.function) && madeWith(props, call))
        .map((call) => ({ ...call, arn: arnOf(call.resource) }));
      for (const fn of functions) {
        const statements = resolvedRoleStatements(json, fn.roleId);
        const own = deployedCalls.filter((call) => call.function === fn.name);
        for (const call of own) {
          if (!allows(statements, call.action, call.arn)) problems.push(`${combination}: ${fn.name} called ${call.action} on ${call.arn}, which its role does not allow`);
        }
        for (const statement of statements.filter((candidate) => candidate.effect === 'Allow')) {
          for (const family of new Set(statement.resources.map((resource) => resource.family))) {
            const patterns = statement.resources.filter((resource) => resource.family === family).map((resource) => resource.pattern);
            const calledOn = (call: { action: string; arn: string }, action: string) =>
              patternMatches(action, call.action, { ignoreCase: true }) && patterns.some((pattern) => patternMatches(pattern, call.arn));
            for (const action of statement.actions) {
              if (own.some((call) => calledOn(call, action))) continue;
              const entry = grantedUnrecorded.find((candidate) => isGrantee(candidate, fn) && candidate.actions.includes(action) && targetOf(candidate.on, fn) === family);
              if (!entry) {
                problems.push(`${combination}: ${fn.name}'s role grants ${action} on ${patterns.join(', ')}, which it did not call and infra/granted-unrecorded.ts does not list`);
                continue;
              }
              usedEntries.add(entry);
              const grantees = functions.filter((other) => isGrantee(entry, other)).map((other) => other.name);
              if (entry.calledByOneOfThem && !deployedCalls.some((call) => grantees.includes(call.function) && calledOn(call, action))) {
                problems.push(`${combination}: ${action} on ${patterns.join(', ')} is granted to ${grantees.join(', ')} and none of them called it`);
              }
            }
          }
        }
      }

      // Every role belongs to a function, or is listed as no function's.
      const functionRoles = new Set(functions.map((fn) => fn.roleId));
      for (const role of stack.node.findAll().filter((construct): construct is CfnRole => construct instanceof CfnRole)) {
        if (functionRoles.has(stack.getLogicalId(role))) continue;
        const path = role.node.path.slice(stack.node.path.length + 1).replace(/\/Resource$/, '');
        if (rolesOfNoFunction.some((listed) => listed.path === path)) usedRoles.add(path);
        else problems.push(`${combination}: the role ${path} belongs to no function and infra/granted-unrecorded.ts does not list it`);
      }
    }
    for (const entry of grantedUnrecorded.filter((candidate) => !usedEntries.has(candidate))) {
      problems.push(`infra/granted-unrecorded.ts lists ${entry.actions.join(', ')} for ${JSON.stringify(entry.grantees)}, which no role needs it for: remove it`);
    }
    for (const listed of rolesOfNoFunction.filter((candidate) => !usedRoles.has(candidate.path))) {
      problems.push(`infra/granted-unrecorded.ts lists the role ${listed.path}, which no combination has: remove it`);
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
