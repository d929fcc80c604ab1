/**
 * The service's own metrics, as CloudWatch embedded metric format (EMF) lines: one JSON line
 * per data point that CloudWatch Logs turns into a metric, with no API call and no client in
 * the bundle (the same terms as ./logger.ts: Powertools Metrics would add 15.2 KiB). All in
 * one namespace, POWERTOOLS_METRICS_NAMESPACE (default `SimCheckoutService`), each with the
 * `service` dimension and the dimensions the metric names; a line also carries the
 * invocation's correlation_id and function_request_id as plain properties, so Logs Insights
 * finds the requests behind a data point.
 *
 * A data point is written at once (not buffered until the end of the invocation as Powertools
 * does): an invocation records one to five of them, and a function that times out keeps what
 * it had recorded. The metric names and their dimensions are in `metricNames` (docs/operations.md).
 */
import { logKeys } from './invocation';
import { logOutput, serviceName } from './logger';

/** Every metric the service emits, with its unit and the dimensions it is recorded by (besides `service`). */
export const metricNames = {
  /** Every HTTP answer, by route (`METHOD resource`) and status class (2xx, 4xx, 5xx). */
  Requests: { unit: 'Count', dimensions: ['route', 'status_class'] },
  /** Time spent in the function per HTTP request, by route. */
  Latency: { unit: 'Milliseconds', dimensions: ['route'] },
  /** 429 answers by code (rate_limited_burst, _minute, _hour, _poll_interval). */
  RateLimited: { unit: 'Count', dimensions: ['code'] },
  /** 401/403 answers by code (bearer_token_required, invalid_api_key, ...). */
  AuthFailures: { unit: 'Count', dimensions: ['code'] },
  /** SMS accepted by the provider (A3 answered 202, and fulfilment SMS). */
  SmsSubmitted: { unit: 'Count', dimensions: [] },
  /** SMS refused (by the provider or by the service's rules), by code. */
  SmsRefused: { unit: 'Count', dimensions: ['code'] },
  /** Delivery receipts received, by status (delivered, expired, failed) and outcome (recorded, repeat ...). */
  Receipts: { unit: 'Count', dimensions: ['status'] },
  /** Receipts posted to a callback_url with a 2xx answer. */
  CallbacksForwarded: { unit: 'Count', dimensions: [] },
  /** Receipts whose forward failed (not retried, spec Events 1), by reason. */
  CallbacksFailed: { unit: 'Count', dimensions: [] },
  /** Checkout answers by endpoint (esim, physical, iot) and outcome (created or the error code). */
  Checkouts: { unit: 'Count', dimensions: ['endpoint', 'outcome'] },
  /** Payment intents created at Stripe. */
  PaymentIntentsCreated: { unit: 'Count', dimensions: [] },
  /** Payment intents Stripe refused or could not be asked for, by code. */
  PaymentIntentsFailed: { unit: 'Count', dimensions: ['code'] },
  /** Orders fulfilled after payment, by endpoint. */
  FulfilmentsCompleted: { unit: 'Count', dimensions: [] },
  /** Paid orders flagged for review (nothing provisioned; a person decides). */
  OrdersFlaggedForReview: { unit: 'Count', dimensions: [] },
  /** Fulfilment effects (e-mail, SMS, notification) whose outcome is unknown (not sent again). */
  EffectsUnknown: { unit: 'Count', dimensions: [] },
  /** Delivery events of AWS End User Messaging SMS (issue #21), by event type and what they did (recorded, history, repeat, ignored, dropped). */
  SmsDeliveryEvents: { unit: 'Count', dimensions: ['event_type', 'outcome'] },
  /** Inbound (two-way) SMS (issue #21), by outcome: stored, repeat, unknown_number, malformed. */
  InboundSms: { unit: 'Count', dimensions: ['outcome'] },
  /** Lifecycle events made from the table's stream (issue #15), by type. */
  LifecycleEvents: { unit: 'Count', dimensions: ['type'] },
  /** Webhook delivery attempts of lifecycle events, by outcome (delivered, failed). */
  WebhookDeliveries: { unit: 'Count', dimensions: ['outcome'] },
  /** First invocations of a container, by function name. */
  ColdStart: { unit: 'Count', dimensions: ['function_name'] },
  /** Operator feed lines by outcome: applied, unchanged, stale, rejected (issue #20; the alarm watches rejected). */
  FeedRecords: { unit: 'Count', dimensions: ['outcome'] },
  /** Stream records a consumer could not process and set aside on its failure queue (issue #31), by consumer. */
  StreamRecordsSetAside: { unit: 'Count', dimensions: ['consumer'] },
  /** Answers of the operator's provisioning API to SIM actions (issue #33), by outcome: accepted, rejected, retry. */
  OperatorRequests: { unit: 'Count', dimensions: ['outcome'] },
  /** SIM actions that ended (issue #33), by outcome: completed, rejected_by_operator, operator_timeout, superseded. */
  SimActionsEnded: { unit: 'Count', dimensions: ['outcome'] },
} as const satisfies Record<string, { unit: 'Count' | 'Milliseconds'; dimensions: readonly string[] }>;

/** The name of a metric of the service. */
export type MetricName = keyof typeof metricNames;

/** The default namespace of every metric. */
export const defaultMetricsNamespace = 'SimCheckoutService';

const settings = { namespace: defaultMetricsNamespace };

/** Sets the namespace (read once per container from POWERTOOLS_METRICS_NAMESPACE). */
export const configureMetrics = (options: { namespace?: string }): void => {
  if (options.namespace) settings.namespace = options.namespace;
};

/** Dimension values of one data point; a dimension left out or empty is recorded as `none`. */
export type Dimensions = Record<string, string | number | undefined>;

/**
 * The EMF line of one data point. A metric with dimensions is recorded twice in the same
 * line: by `service` alone (what the alarms watch: one series per metric) and by `service`
 * and its own dimensions (what the dashboard breaks down).
 */
export const emfLine = (name: MetricName, value: number, dimensions: Dimensions = {}, now = Date.now()): string => {
  const definition = metricNames[name];
  const values: Record<string, string> = {};
  for (const dimension of definition.dimensions) {
    const given = dimensions[dimension];
    values[dimension] = given === undefined || given === '' ? 'none' : String(given);
  }
  const keys = logKeys();
  const dimensionSets = definition.dimensions.length > 0 ? [['service'], ['service', ...definition.dimensions]] : [['service']];
  return JSON.stringify({
    _aws: {
      Timestamp: now,
      CloudWatchMetrics: [
        { Namespace: settings.namespace, Dimensions: dimensionSets, Metrics: [{ Name: name, Unit: definition.unit }] },
      ],
    },
    service: serviceName(),
    ...values,
    [name]: value,
    ...(typeof keys.correlation_id === 'string' ? { correlation_id: keys.correlation_id } : {}),
    ...(typeof keys.function_request_id === 'string' ? { function_request_id: keys.function_request_id } : {}),
  });
};

/** Records one data point of `name` (default value 1: a count) with its dimensions. */
export const recordMetric = (name: MetricName, dimensions: Dimensions = {}, value = 1): void => {
  logOutput.write(emfLine(name, value, dimensions), 'INFO');
};
