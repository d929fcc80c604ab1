import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { QueueName } from '../shared/topology/routes';
import { adminDiscoveryHandler, adminDiscoveryMount } from './admin-discovery';
import { awsSmsMount, type AwsSmsEmulator } from './aws-sms-emulator';
import type { DeveloperConsole } from './console';
import { consolePath as developerConsolePath } from './console/page';
import { feedHandler, feedMount } from './feed-endpoint';
import { operatorMount, type OperatorEmulator } from './operator-emulator';
import type { LocalMount } from './gateway';
import { referenceMounts, type ReferenceCredentials } from './reference-page';
import { simChangesHandler, simChangesMount } from './sim-changes';
import type { QueueUrls } from './sqs-local';
import type { StripeEmulator } from './stripe-emulator';

/** What the runtime's local mounts serve. */
export interface RuntimeMountParts {
  developerConsole: DeveloperConsole;
  /** The API reference page's prefilled authentication (known only once the handler environment is). */
  referenceCredentials: () => ReferenceCredentials | undefined;
  /** The Stripe emulator, when payments go to it. */
  emulator?: StripeEmulator;
  awsSms: AwsSmsEmulator;
  /** The operator emulator (issue #33). */
  operator: OperatorEmulator;
  db: DynamoDBDocumentClient;
  tableName: string;
  sqs: SQSClient;
  queues: Record<QueueName, QueueUrls>;
  /** What the admin CLI needs to reach this runtime's data (GET /_local/admin). */
  region: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
}

/**
 * The gateway's local mounts under `/_local`: the developer console, the API reference, the
 * Stripe emulator (when in use), the AWS End User Messaging SMS emulator, the SIM changes, the
 * operator feed, the operator emulator, and where the admin CLI finds this runtime's table and queues.
 */
export const runtimeMounts = (parts: RuntimeMountParts): Record<string, LocalMount> => ({
  [developerConsolePath]: parts.developerConsole.handle,
  ...referenceMounts(parts.referenceCredentials),
  ...(parts.emulator ? { '/_local/stripe': parts.emulator.handle } : {}),
  // Issue #21: AWS End User Messaging SMS (POST / the API, /events and /inbound into the topics).
  [awsSmsMount]: parts.awsSms.handle,
  // Issue #15: change a SIM's status and usage, so the table's stream makes lifecycle events.
  [simChangesMount]: simChangesHandler(() => ({ db: parts.db, tableName: parts.tableName })),
  // Issue #20: the operator feed, queued for apply-operator-feed as the deployed queue is.
  // Issue #36: npm run admin with no flags reaches this runtime.
  [adminDiscoveryMount]: adminDiscoveryHandler(() => parts),
  [feedMount]: feedHandler(() => ({ sqs: parts.sqs, queueUrl: parts.queues['operator-feed'].url, db: parts.db, tableName: parts.tableName })),
  // Issue #33: the operator's provisioning API, whose confirmations come back through the feed.
  [operatorMount]: parts.operator.handle,
});
