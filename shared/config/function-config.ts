/**
 * The configuration of every function of the service, declared as data (./variables.ts): the
 * environment variables each route and queue consumer reads, which of them are required and
 * which defaults are product decisions. `defineFunction` (./define-function.ts) reads a
 * function's configuration from here once, at init; the stack tests check that the stack
 * gives every function each variable it requires (test/infra/stack.test.ts). Keyed by the
 * function names of the route and queue tables (shared/topology/).
 *
 * No default stands in for deployed configuration: the table name and queue URLs are
 * required (the stack sets them; the local runtime sets them itself), and the region is
 * AWS_REGION, which Lambda always sets. Defaults exist only where they are product
 * decisions: STOCK_HOLD_MINUTES, the callback timeouts and the webhook retry schedule.
 */
import { oneOf, optional, positiveNumber, readByLibrary, required, text, url, wholeSecondsList, withDefault, type ConfigOf } from './variables';
import { defaultServiceName, parseLogLevel } from '../observability/logger';
import { defaultMetricsNamespace } from '../observability/metrics';

/**
 * What every function reads for its logs and metrics (shared/observability/), the names
 * Powertools for AWS Lambda reads, with its defaults: read by defineFunction for every
 * function, beside the function's own configuration; the stack sets all three.
 */
export const observabilityVariables = {
  /** LOG_LEVEL: DEBUG, INFO, WARN or ERROR (default INFO). */
  logLevel: withDefault('LOG_LEVEL', parseLogLevel, 'INFO'),
  /** POWERTOOLS_SERVICE_NAME: the `service` of every log line and metric. */
  serviceName: withDefault('POWERTOOLS_SERVICE_NAME', text, defaultServiceName),
  /** POWERTOOLS_METRICS_NAMESPACE: the CloudWatch namespace of every metric. */
  metricsNamespace: withDefault('POWERTOOLS_METRICS_NAMESPACE', text, defaultMetricsNamespace),
};

/** The logging and metrics configuration of a function. */
export type ObservabilityConfig = ConfigOf<typeof observabilityVariables>;

/**
 * Settings the AWS SDK reads from the environment itself (shared/adapters/aws/sdk-settings.ts):
 * unset, the SDK's own default is given to every client, so that it does not look the setting
 * up; set, nothing is given and the SDK reads the variable as it always does.
 */
export const sdkSettingVariables = {
  /** AWS_USE_FIPS_ENDPOINT: FIPS endpoints (the SDK's default: false). */
  useFipsEndpoint: readByLibrary<boolean>('AWS_USE_FIPS_ENDPOINT', false),
  /** AWS_USE_DUALSTACK_ENDPOINT: dual-stack (IPv6) endpoints (default: false). */
  useDualstackEndpoint: readByLibrary<boolean>('AWS_USE_DUALSTACK_ENDPOINT', false),
  /** AWS_ACCOUNT_ID_ENDPOINT_MODE: DynamoDB's account-ID endpoints (default: preferred). */
  accountIdEndpointMode: readByLibrary<'disabled' | 'preferred' | 'required'>('AWS_ACCOUNT_ID_ENDPOINT_MODE', 'preferred'),
  /** AWS_AUTH_SCHEME_PREFERENCE: auth schemes in order of preference (default: none, the service's own order). */
  authSchemePreference: readByLibrary<string[]>('AWS_AUTH_SCHEME_PREFERENCE', []),
  /** AWS_DEFAULTS_MODE: the SDK's defaults mode (default: legacy). */
  defaultsMode: readByLibrary<'standard' | 'in-region' | 'cross-region' | 'mobile' | 'auto' | 'legacy'>('AWS_DEFAULTS_MODE', 'legacy'),
};

/** The names of the SDK settings in a configuration (shared/adapters/aws/sdk-settings.ts). */
export type SdkSettingKey = keyof typeof sdkSettingVariables;

/** The AWS region, the endpoint overrides of the local runtime (DynamoDB Local, the SQS emulator) and the SDK settings. */
export const awsVariables = {
  /** AWS_REGION: set by Lambda in every function; set explicitly by the local runtime. */
  region: required('AWS_REGION', text),
  /** DYNAMODB_ENDPOINT: DynamoDB Local; unset in AWS. */
  dynamodbEndpoint: optional('DYNAMODB_ENDPOINT', url),
  /** SQS_ENDPOINT: the local SQS emulator; unset in AWS. */
  sqsEndpoint: optional('SQS_ENDPOINT', url),
  ...sdkSettingVariables,
};

/** The AWS settings every client is built from. */
export type AwsConfig = ConfigOf<typeof awsVariables>;

/** What a function with table access reads: the AWS settings and TABLE_NAME. */
export const tableVariables = {
  ...awsVariables,
  /** TABLE_NAME: the single DynamoDB table. */
  tableName: required('TABLE_NAME', text),
};

/** The configuration of a function with table access. */
export type TableConfig = ConfigOf<typeof tableVariables>;

/** NODE_EXTRA_CA_CERTS, read by the outbound HTTPS calls (shared/adapters/https/trusted-ca.ts). */
export const outboundVariables = {
  /** A PEM file of extra trusted CAs; the local runtime may set it after Node started. */
  extraCaCertificates: optional('NODE_EXTRA_CA_CERTS', text),
};

/** How receipts' callback URLs are checked (send-sms) and forwarded (forward-receipt). */
export const callbackVariables = {
  /** CALLBACK_ALLOWED_HOSTS: comma-separated hosts exempt from the public-address rule; local testing only. */
  allowedCallbackHosts: optional('CALLBACK_ALLOWED_HOSTS', text),
  /** LOCAL_WEBHOOK_INBOX_URL: the local runtime's HTTPS inbox, named in a refused callback_url's detail; set by `npm start` only. */
  localWebhookInboxUrl: optional('LOCAL_WEBHOOK_INBOX_URL', text),
};

/** The SMS providers a function can send through (docs/sms.md): the provider HTTP API, or AWS End User Messaging SMS. */
export const smsProviders = ['http', 'aws'] as const;

/** What a function that sends SMS reads (docs/sms-provider-api.md; docs/sms.md, "AWS End User Messaging SMS"). */
export const smsVariables = {
  ...outboundVariables,
  /** SMS_PROVIDER: `http` (the provider HTTP API, the default) or `aws` (AWS End User Messaging SMS). */
  smsProvider: withDefault('SMS_PROVIDER', oneOf(smsProviders), 'http'),
  /** SMS_PROVIDER_URL: the provider's HTTP API; unset means SMS is not configured (`sms_not_configured`). */
  providerUrl: optional('SMS_PROVIDER_URL', url),
  /** PUBLIC_BASE_URL: where the provider posts receipts; unset means the request's own origin. */
  publicBaseUrl: optional('PUBLIC_BASE_URL', url),
  /** SMS_ORIGINATION_IDENTITY (aws): phone number, pool or sender ID (ID or ARN); unset means SMS is not configured. */
  originationIdentity: optional('SMS_ORIGINATION_IDENTITY', text),
  /** SMS_CONFIGURATION_SET (aws): the configuration set of the delivery events; unset means SMS is not configured. */
  configurationSet: optional('SMS_CONFIGURATION_SET', text),
  /** AWS_SMS_ENDPOINT (aws): a PinpointSMSVoiceV2-compatible endpoint (the local emulator); unset means AWS itself. */
  awsSmsEndpoint: optional('AWS_SMS_ENDPOINT', url),
};

/** The SMS part of a configuration. */
export type SmsConfig = ConfigOf<typeof smsVariables>;

/** How long a checkout holds stock (also replacement stock in fulfilment). */
const stockHoldMinutes = withDefault('STOCK_HOLD_MINUTES', positiveNumber, 30);

/** An Area A route: the table (credentials, rate limits and the data all live there). */
const developerRoute = tableVariables;

/** A storefront checkout (docs/area-b.md). */
const checkout = {
  ...tableVariables,
  /** STRIPE_API_BASE: a Stripe-compatible API (stripe-mock, a test server); unset means Stripe itself. */
  stripeApiBase: optional('STRIPE_API_BASE', url),
  stockHoldMinutes,
};

/** A webhook subscription route (issue #15): `url` follows the callback_url rules. */
const webhookRoute = { ...developerRoute, ...callbackVariables };

/**
 * The waits between webhook delivery attempts (issue #15: exponential backoff over about a
 * day): 1 min, 5 min, 30 min, 2 h, 6 h, 12 h after attempts 1 to 6 (shared/queues/retry-schedule.ts).
 */
export const defaultRetryScheduleSeconds = [60, 300, 1800, 7200, 21_600, 43_200];

/** WEBHOOK_DELIVERY_QUEUE_URL: the webhook-deliveries queue (text, as CALLBACK_QUEUE_URL). */
const deliveryQueueUrl = required('WEBHOOK_DELIVERY_QUEUE_URL', text);

/**
 * The failure queue of a stream consumer (shared/topology/streams.ts `failureQueueUrlVariable`):
 * where it sets aside a record it cannot process (shared/queues/stream-failures.ts). One
 * variable per consumer, since the local runtime hosts every handler in one process.
 */
const lifecycleFailureQueueUrl = required('LIFECYCLE_FAILURE_QUEUE_URL', text);
/** SIM_LISTS_FAILURE_QUEUE_URL: the failure queue of maintain-sim-lists (as above). */
const simListsFailureQueueUrl = required('SIM_LISTS_FAILURE_QUEUE_URL', text);

/**
 * OPERATOR_PROVISIONING_URL (issue #33): the operator's provisioning API
 * (docs/operator-provisioning-api.md). Unset deployed: no operator, and a new SIM action answers
 * 503 operator_not_configured; the local runtime sets its emulator's when none is given.
 */
const operatorProvisioningUrl = optional('OPERATOR_PROVISIONING_URL', url);

/** The waits between attempts at the operator's provisioning API (shared/sim-actions/send-action.ts). */
export const defaultOperatorRetryScheduleSeconds = [10, 30, 60, 300, 900, 1800, 3600];

/** Every function's configuration, by function name (route and queue consumer names). */
export const functionConfigs = {
  'list-sims': developerRoute,
  'get-sim': developerRoute,
  'get-sms': developerRoute,
  'developer-fallback': developerRoute,
  'send-sms': { ...developerRoute, ...smsVariables, ...callbackVariables },
  'receive-sms-receipt': {
    ...tableVariables,
    /** CALLBACK_QUEUE_URL: where moved receipts go for forwarding (text: the SQS emulator's URLs are not WHATWG URLs). */
    callbackQueueUrl: required('CALLBACK_QUEUE_URL', text),
  },
  'checkout-esim': checkout,
  'checkout-physical': checkout,
  'checkout-iot': checkout,
  'stripe-webhook': {
    // No table: the webhook only verifies and queues (no DynamoDB client in its bundle).
    ...awsVariables,
    /** FULFILMENT_QUEUE_URL: where verified payment events go (text, as CALLBACK_QUEUE_URL). */
    fulfilmentQueueUrl: required('FULFILMENT_QUEUE_URL', text),
  },
  'default-fallback': {},
  'forward-receipt': {
    ...outboundVariables,
    ...callbackVariables,
    /** CALLBACK_CONNECT_TIMEOUT_MS: connect timeout of a forward (spec A4: 5 s). */
    connectTimeoutMs: withDefault('CALLBACK_CONNECT_TIMEOUT_MS', positiveNumber, 5000),
    /** CALLBACK_TOTAL_TIMEOUT_MS: total timeout of a forward (spec A4: 10 s). */
    totalTimeoutMs: withDefault('CALLBACK_TOTAL_TIMEOUT_MS', positiveNumber, 10_000),
  },
  'create-webhook': webhookRoute,
  'list-webhooks': webhookRoute,
  'get-webhook': webhookRoute,
  'delete-webhook': webhookRoute,
  'rotate-webhook-secret': webhookRoute,
  'list-webhook-deliveries': webhookRoute,
  'publish-lifecycle-events': { ...tableVariables, deliveryQueueUrl, failureQueueUrl: lifecycleFailureQueueUrl },
  'maintain-sim-lists': { ...tableVariables, failureQueueUrl: simListsFailureQueueUrl },
  'apply-operator-feed': tableVariables,
  'record-sms-events': {
    ...tableVariables,
    /** CALLBACK_QUEUE_URL: where receipts of messages moved by a final event go for forwarding. */
    callbackQueueUrl: required('CALLBACK_QUEUE_URL', text),
  },
  'receive-inbound-sms': tableVariables,
  'request-sim-action': {
    ...developerRoute,
    operatorProvisioningUrl,
    /** OPERATOR_ACTION_QUEUE_URL: where new actions go for the operator (text, as CALLBACK_QUEUE_URL). */
    operatorActionQueueUrl: required('OPERATOR_ACTION_QUEUE_URL', text),
  },
  'list-sim-actions': developerRoute,
  'get-sim-action': developerRoute,
  'send-sim-action': {
    ...tableVariables,
    ...outboundVariables,
    operatorProvisioningUrl,
    /** OPERATOR_ACTION_QUEUE_URL: its own queue, whose messages it hides to schedule retries. */
    operatorActionQueueUrl: required('OPERATOR_ACTION_QUEUE_URL', text),
    /** OPERATOR_RETRY_SCHEDULE_SECONDS: waits between attempts (a shorter list repeats its last step). */
    retrySchedule: withDefault('OPERATOR_RETRY_SCHEDULE_SECONDS', wholeSecondsList, defaultOperatorRetryScheduleSeconds),
  },
  'expire-sim-actions': tableVariables,
  'deliver-webhook': {
    ...tableVariables,
    ...outboundVariables,
    ...callbackVariables,
    deliveryQueueUrl,
    /** CALLBACK_CONNECT_TIMEOUT_MS: connect timeout of a delivery (5 s, as the receipts'). */
    connectTimeoutMs: withDefault('CALLBACK_CONNECT_TIMEOUT_MS', positiveNumber, 5000),
    /** CALLBACK_TOTAL_TIMEOUT_MS: a 2xx within this is success (issue #15: 10 s). */
    totalTimeoutMs: withDefault('CALLBACK_TOTAL_TIMEOUT_MS', positiveNumber, 10_000),
    /** WEBHOOK_RETRY_SCHEDULE_SECONDS: waits between attempts (shared/queues/retry-schedule.ts). */
    retrySchedule: withDefault('WEBHOOK_RETRY_SCHEDULE_SECONDS', wholeSecondsList, defaultRetryScheduleSeconds),
    /** WEBHOOK_FAILING_AFTER_EVENTS: events in a row that exhaust their retries before a subscription is `failing`. */
    failingAfterEvents: withDefault('WEBHOOK_FAILING_AFTER_EVENTS', positiveNumber, 5),
  },
  'fulfil-order': {
    ...tableVariables,
    ...smsVariables,
    stockHoldMinutes,
    /** EMAIL_OUTBOX_DIR: the local outbox folder (e-mails written as .eml files instead of sent). */
    emailOutboxDir: optional('EMAIL_OUTBOX_DIR', text),
    /** EMAIL_FROM: the sender; with no outbox, e-mail goes through SES from it; neither: no e-mail. */
    emailFrom: optional('EMAIL_FROM', text),
    /** EMAIL_CONFIGURATION_SET: the SES configuration set, if any. */
    emailConfigurationSet: optional('EMAIL_CONFIGURATION_SET', text),
    /** OPERATIONS_TOPIC_ARN: the operations SNS topic (deployed). */
    operationsTopicArn: optional('OPERATIONS_TOPIC_ARN', text),
    /** OPERATIONS_OUTBOX_DIR: the local notifications folder (default `operations/` under EMAIL_OUTBOX_DIR). */
    operationsOutboxDir: optional('OPERATIONS_OUTBOX_DIR', text),
  },
};

/** The name of a function of the service. */
export type FunctionName = keyof typeof functionConfigs;

/** A function's configuration as read. */
export type FunctionConfig<Name extends FunctionName> = ConfigOf<(typeof functionConfigs)[Name]>;

/**
 * Variables that the Lambda runtime itself sets in every function, so the stack does not: a
 * required one of them needs no entry in the function's environment.
 */
export const lambdaRuntimeVariables = ['AWS_REGION'];
