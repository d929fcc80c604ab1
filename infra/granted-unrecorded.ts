/**
 * The reviewed list of what the functions' roles are granted although the permission test
 * (test/infra/permissions.test.ts) does not see the functions call it, each with its reason.
 * The test drives every function in the local runtime and records each AWS action it calls
 * (local/aws-call-recorder.ts); a grant of a role that was neither called nor is listed here
 * fails it, and so does an entry here that no role of any context combination needs any more.
 * Plain data, read by the test only. docs/deploy.md, "Permissions proven by the tests", says
 * how to change it.
 */
import type { SecretName } from '../shared/topology/routes';

/** Whose roles an entry is about. */
export type Grantees =
  | 'every function'
  /** The consumers of shared/topology/queues.ts. */
  | 'queue consumers'
  /** The consumers of the table's stream (shared/topology/streams.ts). */
  | 'stream consumers'
  /** The consumers of the SNS topics (shared/topology/topics.ts). */
  | 'topic consumers'
  /** The functions whose route table entry has this table access. */
  | { tableAccess: 'read' | 'readWrite' }
  | { functions: readonly string[] };

/** What the grant is on, for each function of the entry. */
export type GrantTarget =
  | 'its log group'
  | 'any resource (*)'
  /** A queue consumer's own work queue. */
  | 'its queue'
  /** A stream or topic consumer's failure queue. */
  | 'its failure queue'
  | 'the table stream'
  /** The table and its indexes. */
  | 'the table'
  | { secret: SecretName };

/** One reviewed grant. */
export interface GrantedUnrecorded {
  actions: readonly string[];
  grantees: Grantees;
  on: GrantTarget;
  /**
   * The test also requires that some function of the entry called each action: the entry
   * covers the others that hold it, never an action that no function calls.
   */
  calledByOneOfThem?: true;
  reason: string;
}

/** Grants the functions' roles hold without the test seeing them called. */
export const grantedUnrecorded: readonly GrantedUnrecorded[] = [
  {
    actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    grantees: 'every function',
    on: 'its log group',
    reason: 'Lambda itself writes the function\'s log lines with its role; the code makes no logs call.',
  },
  {
    actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
    grantees: 'every function',
    on: 'any resource (*)',
    reason: 'Active X-Ray tracing: Lambda sends the function\'s segments with its role; the code makes no X-Ray call. The actions take no narrower resource.',
  },
  {
    actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    grantees: 'queue consumers',
    on: 'its queue',
    reason:
      'The SQS event source mapping receives, deletes and hands back the messages with the function\'s role (CDK\'s SqsEventSource grants these); deliver-webhook also changes a failed message\'s visibility itself, which this test does not provoke.',
  },
  {
    actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'],
    grantees: 'stream consumers',
    on: 'the table stream',
    reason: 'The DynamoDB event source mapping reads the table\'s stream with the function\'s role; the code reads no stream.',
  },
  {
    actions: ['dynamodb:ListStreams'],
    grantees: 'stream consumers',
    on: 'any resource (*)',
    reason: 'The DynamoDB event source mapping lists the streams with the function\'s role; ListStreams has no resource-level form.',
  },
  {
    actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    grantees: 'stream consumers',
    on: 'its failure queue',
    reason:
      'The event source mapping\'s on-failure destination sends the positions of a batch whose retries ran out with the function\'s role (CDK\'s SqsDlq grants these three); the consumer itself sends there only a record it cannot process, which this test does not provoke.',
  },
  {
    actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
    grantees: 'topic consumers',
    on: 'its failure queue',
    reason:
      'Lambda\'s on-failure destination of an asynchronous invocation sends an event that failed its retries with the function\'s role (CDK\'s SqsDestination grants these three); the code sends nothing there.',
  },
  {
    actions: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:ConditionCheckItem'],
    grantees: { tableAccess: 'readWrite' },
    on: 'the table',
    calledByOneOfThem: true,
    reason:
      'Table access is declared per function as none, read or readWrite (shared/topology/routes.ts), and readWrite grants the actions that the readWrite functions call between them (infra/constructs/service-function.ts tableActions), not each one\'s own: a function narrowed to what this test saw would be refused on the paths it does not drive (a refused SMS releases its message id with DeleteItem, a list bucket split writes a transaction). The test checks that one readWrite function calls each.',
  },
  {
    actions: ['secretsmanager:GetSecretValue'],
    grantees: { functions: ['send-sms', 'fulfil-order'] },
    on: { secret: 'SMS_PROVIDER_TOKEN' },
    reason:
      'The bearer token of the SMS provider\'s HTTP API, read by the http provider only (smsProvider=http, the default; test/area-a-sms reads it); this test sends every SMS through AWS End User Messaging, which needs no token. Access is declared per function, not per provider.',
  },
];

/** Roles of the stack that are no function's of the route, queue, stream or topic tables, by construct path below the stack. */
export const rolesOfNoFunction: readonly { path: string; reason: string }[] = [
  {
    path: 'AWS679f53fac002430cb0da5b7982bd2287/ServiceRole',
    reason:
      'The provider function of CDK\'s AwsCustomResource (with smsTwoWay and smsPhoneNumberId: the number\'s two-way channel, infra/constructs/aws-sms.ts): it runs at deploy time only, with sms-voice:UpdatePhoneNumber on that one number and AWS\'s basic execution policy.',
  },
];

/** Functions the test does not drive, with the reason: none, every function is driven. */
export const notExercised: readonly { function: string; reason: string }[] = [];
