/**
 * Which AWS API actions each function calls, on what, recorded while the local runtime runs it
 * (issue #32, point 6: the permission test, test/infra/permissions.test.ts, holds every
 * recorded action against the function's role in the synthesised stack).
 *
 * Local and test only, and invisible to the handlers: while a recording is on, every invocation
 * the runtime makes (local/handler-loader.ts `invokeHandler`: the gateway, the pollers, the
 * stream reader, the topics) runs inside a scope that names its function (./invocation-scope.ts),
 * and `send` of the AWS SDK's client class (the one class every v3 client, the DynamoDB
 * document client included, extends) notes each call made inside such a scope, as the IAM
 * actions it needs and the resources it names. A secret is read locally from the variable of
 * its name (shared/config/secrets.ts), deployed through the Parameters and Secrets extension's
 * GetSecretValue with the function's role: the recording reads of those variables inside a
 * scope as that action. What the runtime itself calls (pollers, the stream reader, the
 * emulators) is outside every scope and is not recorded.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import { queueDefinitions } from '../shared/topology/queues';
import { allRoutes, type SecretName } from '../shared/topology/routes';
import { schedules } from '../shared/topology/schedules';
import { streamConsumers } from '../shared/topology/streams';
import { topicConsumers } from '../shared/topology/topics';
import { runningFunction, watchInvocations } from './invocation-scope';

/** What a recorded action names, as the local runtime knows it (the permission test maps it onto the stack). */
export type AwsResource =
  | { type: 'table'; table: string; index?: string }
  | { type: 'queue'; url: string }
  | { type: 'topic'; arn: string }
  | { type: 'sms-origination-identity'; identity: string }
  | { type: 'sms-configuration-set'; name: string }
  | { type: 'email-identity'; address: string }
  | { type: 'secret'; name: SecretName };

/** One IAM action a function's call needed, on one resource. */
export interface AwsCall {
  /** The function (route or consumer name) whose invocation made the call. */
  function: string;
  /** IAM action, e.g. `dynamodb:Query`. */
  action: string;
  resource: AwsResource;
}

/** A recording under way. */
export interface AwsCallRecording {
  /** The distinct calls so far, in the order first made. */
  calls(): AwsCall[];
  /** The functions invoked so far (with or without AWS calls). */
  invoked(): string[];
  /** Stops recording: `send` and process.env are as before. */
  stop(): void;
}

let active: { calls: Map<string, AwsCall>; invoked: Set<string>; unknown: string[] } | undefined;

const note = (action: string, resource: AwsResource): void => {
  const fn = runningFunction();
  if (!fn || !active) return;
  const call = { function: fn, action, resource };
  const id = JSON.stringify(call);
  if (!active.calls.has(id)) active.calls.set(id, call);
};

/** Input fields of the commands the service sends (only those that name a resource). */
interface CommandInput {
  TableName?: string;
  IndexName?: string;
  RequestItems?: Record<string, unknown>;
  TransactItems?: Array<Record<string, { TableName?: string }>>;
  QueueUrl?: string;
  TopicArn?: string;
  OriginationIdentity?: string;
  ConfigurationSetName?: string;
  FromEmailAddress?: string;
  Content?: { Raw?: unknown };
}

/** The IAM action of each item kind of TransactWriteItems / TransactGetItems (there is no Transact* action). */
const transactItemActions: Record<string, string> = {
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Get: 'dynamodb:GetItem',
};

/** The address inside `Name <address>`, or the text itself. */
const bareAddress = (from: string): string => (/<([^<>]+)>\s*$/.exec(from)?.[1] ?? from).trim();

/**
 * The IAM actions and resources of one SDK call (`service` the client's serviceId, `operation`
 * the API operation). Throws for a service or operation it does not know, so that a new kind
 * of call fails the permission test instead of passing unseen.
 */
const recordCall = (service: string, operation: string, input: CommandInput): void => {
  if (service === 'DynamoDB') {
    if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
      for (const item of input.TransactItems ?? []) {
        for (const [kind, body] of Object.entries(item)) {
          const action = transactItemActions[kind];
          if (!action) throw new Error(`a ${operation} item of kind ${kind}, which the AWS call recorder does not know`);
          note(action, { type: 'table', table: body.TableName ?? '' });
        }
      }
      return;
    }
    if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
      for (const table of Object.keys(input.RequestItems ?? {})) note(`dynamodb:${operation}`, { type: 'table', table });
      return;
    }
    const table = input.TableName ?? '';
    note(`dynamodb:${operation}`, { type: 'table', table, ...(input.IndexName ? { index: input.IndexName } : {}) });
    return;
  }
  // A batch is authorised as its single action (there is no sqs:SendMessageBatch action).
  if (service === 'SQS') return note(`sqs:${operation.replace(/Batch$/, '')}`, { type: 'queue', url: input.QueueUrl ?? '' });
  if (service === 'SNS') return note(`sns:${operation}`, { type: 'topic', arn: input.TopicArn ?? '' });
  if (service === 'SESv2') {
    // SES authorises a send against the sender's identity (and a configuration set, when one is
    // named); v2's SendEmail of raw MIME content is checked as ses:SendRawEmail too (its
    // AccessDenied names that action), so both are noted.
    const identity = { type: 'email-identity', address: bareAddress(input.FromEmailAddress ?? '') } as const;
    note(`ses:${operation}`, identity);
    if (operation === 'SendEmail' && input.Content?.Raw) note('ses:SendRawEmail', identity);
    if (input.ConfigurationSetName) throw new Error('an SES send with a configuration set, which the AWS call recorder does not map yet');
    return;
  }
  if (service === 'Pinpoint SMS Voice V2') {
    // IAM checks SendTextMessage against both the origination identity and the configuration set.
    note(`sms-voice:${operation}`, { type: 'sms-origination-identity', identity: input.OriginationIdentity ?? '' });
    if (input.ConfigurationSetName) note(`sms-voice:${operation}`, { type: 'sms-configuration-set', name: input.ConfigurationSetName });
    return;
  }
  throw new Error(`an AWS call to ${service} ${operation}, a service the AWS call recorder does not know`);
};

/** The operation of a command: its class name without `Command` (a document client command: its DynamoDB command's). */
const operationOf = (command: { constructor: { name: string }; clientCommand?: { constructor: { name: string } } }): string =>
  (command.clientCommand ?? command).constructor.name.replace(/Command$/, '');

/**
 * The names of the secrets, whose variables hold their values locally: every secret a function
 * of the route, queue, stream, topic and schedule tables declares (as the stack grants them), so
 * that a new secret is recorded without being named here too.
 */
const secretNames: ReadonlySet<string> = new Set<SecretName>(
  [...allRoutes(), ...queueDefinitions, ...streamConsumers, ...topicConsumers, ...schedules].flatMap(
    (owner) => owner.access.secrets ?? [],
  ),
);

/**
 * Starts recording (one recording at a time, in a process of its own: a test file). Until
 * `stop`, `send` of every AWS SDK v3 client notes its call when made inside an invocation, and
 * a read of a secret's variable inside an invocation notes `secretsmanager:GetSecretValue`.
 * A call the recorder cannot map is kept as an error and thrown by `calls()`.
 */
export const recordAwsCalls = (): AwsCallRecording => {
  if (active) throw new Error('an AWS call recording is already on');
  const recording = { calls: new Map<string, AwsCall>(), invoked: new Set<string>(), unknown: [] as string[] };
  active = recording;
  watchInvocations((functionName) => recording.invoked.add(functionName));
  // Every v3 client extends one Client class (@smithy/core); SQSClient is one of them.
  type Send = (this: { config: { serviceId?: string } }, ...args: unknown[]) => unknown;
  const clientPrototype = Object.getPrototypeOf(SQSClient.prototype) as { send: Send };
  const send = clientPrototype.send;
  clientPrototype.send = function (...args) {
    if (runningFunction()) {
      const command = args[0] as Parameters<typeof operationOf>[0] & { input?: CommandInput };
      try {
        recordCall(this.config.serviceId ?? '', operationOf(command), command.input ?? {});
      } catch (error) {
        recording.unknown.push(`${runningFunction()}: ${(error as Error).message}`);
      }
    }
    return send.apply(this, args);
  };
  const environment = process.env;
  process.env = new Proxy(environment, {
    get: (target, name) => {
      if (typeof name === 'string' && secretNames.has(name)) note('secretsmanager:GetSecretValue', { type: 'secret', name: name as SecretName });
      return target[name as string];
    },
    // Straight onto process.env (a write through the proxy's default would define the property, which it refuses).
    set: (target, name, value) => {
      target[name as string] = value as string;
      return true;
    },
  });
  return {
    calls: () => {
      if (recording.unknown.length > 0) throw new Error(`AWS calls the recorder cannot map:\n${[...new Set(recording.unknown)].join('\n')}`);
      return [...recording.calls.values()];
    },
    invoked: () => [...recording.invoked],
    stop: () => {
      clientPrototype.send = send;
      process.env = environment;
      watchInvocations(undefined);
      active = undefined;
    },
  };
};
