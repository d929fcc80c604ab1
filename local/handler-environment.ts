import { queueDefinitions } from '../shared/topology/queues';
import type { QueueName } from '../shared/topology/routes';
import { awsSmsMount, demoAwsSms } from './aws-sms-emulator';
import { operatorMount } from './operator-emulator';
import { demoSecrets, localAwsEnv } from './demo-config';
import type { LocalPayments } from './runtime-types';
import type { QueueUrls } from './sqs-local';
import { streamFailureEnvironment, type StreamFailureQueueUrls } from './stream-failure-queues';
import { streamConsumers } from '../shared/topology/streams';
import type { StripeEmulator } from './stripe-emulator';

/** The parts of a running runtime the handlers' environment names. */
export interface HandlerEnvironmentParts {
  tableName: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  queues: Record<QueueName, QueueUrls>;
  /** The stream consumers' failure queues (their `failureQueueUrlVariable`s). */
  streamFailureQueues: StreamFailureQueueUrls;
  smsSimulatorUrl: string;
  /** The gateway's base URL (PUBLIC_BASE_URL, and the base of the embedded emulators). */
  baseUrl: string;
  /** The webhook inbox's origin: allowed as a callback host beside CALLBACK_ALLOWED_HOSTS given. */
  inboxOrigin: string;
  /** NODE_EXTRA_CA_CERTS of the handlers (local/trusted-ca-file.ts). */
  trustedCaFile: string;
  /** EMAIL_OUTBOX_DIR; undefined: none, so e-mail goes through SES as deployed (LocalRuntimeOptions.emailThroughSes). */
  outboxDir?: string;
  /** The Stripe emulator, when STRIPE_SECRET_KEY is not given. */
  emulator?: StripeEmulator;
  /** The environment the caller gave (LocalRuntimeOptions.env): it overrides every default. */
  given: Record<string, string>;
}

/**
 * The environment handed to the handlers, the only place where a value for the table, region
 * or queues is chosen for them, and the payment processor it sets up (LOCAL-CONTRACT.md):
 * the local AWS settings, the table, endpoints and queue URLs, the demo secrets, the SMS
 * stand-ins and the operator emulator, then whatever was given (OPERATOR_PROVISIONING_URL `none`:
 * no operator); the callback hosts, trusted CAs and outbox always
 * include the runtime's own. With the Stripe emulator its key and API base are set; with
 * STRIPE_SECRET_KEY `none` neither is.
 */
export const handlerEnvironment = (parts: HandlerEnvironmentParts): { env: Record<string, string>; payments: LocalPayments } => {
  const { given } = parts;
  const env: Record<string, string> = {
    ...localAwsEnv,
    TABLE_NAME: parts.tableName,
    DYNAMODB_ENDPOINT: parts.dynamodbEndpoint,
    SQS_ENDPOINT: parts.sqsEndpoint,
    ...Object.fromEntries(queueDefinitions.map((queue) => [queue.urlVariable, parts.queues[queue.name].url])),
    ...streamFailureEnvironment(streamConsumers, parts.streamFailureQueues),
    ...demoSecrets,
    SMS_PROVIDER_URL: parts.smsSimulatorUrl,
    PUBLIC_BASE_URL: parts.baseUrl,
    // SMS_PROVIDER=aws: the embedded emulator unless AWS_SMS_ENDPOINT is given (LOCAL-CONTRACT.md).
    SMS_ORIGINATION_IDENTITY: demoAwsSms.originationIdentity,
    SMS_CONFIGURATION_SET: demoAwsSms.configurationSet,
    AWS_SMS_ENDPOINT: `${parts.baseUrl}${awsSmsMount}`,
    // SIM actions (issue #33): the embedded operator emulator unless OPERATOR_PROVISIONING_URL is given.
    OPERATOR_PROVISIONING_URL: `${parts.baseUrl}${operatorMount}`,
    ...given,
    CALLBACK_ALLOWED_HOSTS: [given.CALLBACK_ALLOWED_HOSTS, parts.inboxOrigin].filter(Boolean).join(','),
    LOCAL_WEBHOOK_INBOX_URL: `https://${parts.inboxOrigin}/`,
    NODE_EXTRA_CA_CERTS: parts.trustedCaFile,
    ...(parts.outboxDir === undefined ? {} : { EMAIL_OUTBOX_DIR: parts.outboxDir }),
  };
  // `none`: no operator, as deployed without one (a new SIM action answers 503 operator_not_configured).
  if (env.OPERATOR_PROVISIONING_URL === 'none' || env.OPERATOR_PROVISIONING_URL === '') delete env.OPERATOR_PROVISIONING_URL;
  let payments: LocalPayments;
  if (parts.emulator) {
    payments = { mode: 'emulator', emulator: parts.emulator, apiBase: `${parts.baseUrl}/_local/stripe` };
    env.STRIPE_SECRET_KEY = parts.emulator.secretKey;
    env.STRIPE_API_BASE = payments.apiBase;
  } else if ((given.STRIPE_SECRET_KEY ?? '') === 'none') {
    payments = { mode: 'none' };
    delete env.STRIPE_SECRET_KEY;
    delete env.STRIPE_API_BASE;
  } else {
    payments = { mode: 'configured', apiBase: env.STRIPE_API_BASE || undefined };
  }
  return { env, payments };
};
