/**
 * The one logger of the service, for every function and the local runtime. Each line is one
 * JSON object with top-level fields, in the shape of Powertools for AWS Lambda's Logger, so
 * that CloudWatch Logs Insights queries `order_id` or `message_id` directly:
 *
 *     {"level":"INFO","message":"receipt forwarded","timestamp":"2026-11-25T13:00:00.000Z",
 *      "service":"sim-checkout-service","function_name":"...","function_request_id":"...",
 *      "cold_start":false,"correlation_id":"...","message_id":"m-1","http_status":200}
 *
 * Usage: `logger.info('message', { order_id, ... })` (also debug, warn, error); an `error`
 * field that is an Error is written as {name, message, stack}. The invocation's keys come
 * from ./invocation.ts (set by the HTTP route and queue consumer wrappers). The level is
 * LOG_LEVEL (DEBUG, INFO, WARN, ERROR; default INFO) and the service POWERTOOLS_SERVICE_NAME,
 * both read once at init (`observabilityVariables`, shared/config/function-config.ts) and
 * given to `configureLogger` by shared/config/define-function.ts.
 *
 * Why not @aws-lambda-powertools/logger itself: with /metrics it adds 33.4 KiB to a bundle
 * (logger 22.9, metrics 15.2, minified as the stack bundles them), which would take the
 * stripe-webhook bundle from 322 KiB to about 355 KiB, over its budget of 1.0 x the
 * DynamoDB-only bundle (334 KiB); this module and ./metrics.ts weigh a few KiB (docs/operations.md).
 *
 * Lines are written to stdout directly, not through console.log: in a Lambda function with
 * the JSON log format, console.log wraps a line as an escaped string inside `message`.
 * No secret is ever written: a field whose name says secret, token, password, authorization,
 * signature, api key or client secret is replaced by "[redacted]", at any depth. No whole phone
 * number and no URL's path or query is ever written either, whatever the call site: phone
 * numbers show their last four digits, URLs their origin, by field name and inside any text
 * (the message and error messages included): ./redaction.ts.
 */
import { logKeys, type LogFields } from './invocation';
import { redactText, redactValue } from './redaction';

/** The levels, lowest first. */
export const logLevels = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** A log level. */
export type LogLevel = (typeof logLevels)[number];

/** The service name of every line and metric unless POWERTOOLS_SERVICE_NAME says otherwise. */
export const defaultServiceName = 'sim-checkout-service';

const settings = { level: 'INFO' as LogLevel, service: defaultServiceName };

/** Sets the level and service name (read once per container from LOG_LEVEL and POWERTOOLS_SERVICE_NAME). */
export const configureLogger = (options: { level?: LogLevel; service?: string }): void => {
  if (options.level) settings.level = options.level;
  if (options.service) settings.service = options.service;
};

/** The service name lines and metrics carry. */
export const serviceName = (): string => settings.service;

/**
 * Where lines go: stdout (WARN and ERROR to stderr, as Powertools does). Tests replace
 * `write` with a spy (`vi.spyOn(logOutput, 'write')`) to read the lines.
 */
export const logOutput = {
  write: (line: string, level: LogLevel): void => {
    (level === 'WARN' || level === 'ERROR' ? process.stderr : process.stdout).write(`${line}\n`);
  },
};

const secretName = /secret|token|password|authori[sz]ation|signature|api[-_]?key|cookie/i;
const maxDepth = 8;

/**
 * A value made safe for a line: secrets redacted, phone numbers masked and URLs cut to their
 * origin (./redaction.ts; `name` is the field the value is under, or the array's field),
 * Errors as {name, message, stack}, bigints as text.
 */
const clean = (value: unknown, depth = 0, name?: string): unknown => {
  if (value instanceof Error) {
    return { name: value.name, message: redactText(value.message), ...(value.stack ? { stack: redactText(value.stack) } : {}) };
  }
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'string' || typeof value === 'number') return redactValue(name, value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= maxDepth) return '[too deep]';
  if (Array.isArray(value)) return value.map((item) => clean(item, depth + 1, name));
  if (value instanceof Date) return value.toISOString();
  // Entries defined, not assigned: a field named __proto__ (from a request body) stays a field.
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, secretName.test(key) ? '[redacted]' : clean(item, depth + 1, key)]));
};

/** Whether a line of `level` is written under the configured level. */
export const isLevelEnabled = (level: LogLevel): boolean => logLevels.indexOf(level) >= logLevels.indexOf(settings.level);

/** The JSON line of one entry (exported for the tests and the local runtime's own lines). */
export const formatLine = (level: LogLevel, message: string, fields: LogFields = {}): string =>
  JSON.stringify({
    level,
    message: redactText(message),
    timestamp: new Date().toISOString(),
    service: settings.service,
    ...(clean(logKeys()) as LogFields),
    ...(clean(fields) as LogFields),
  });

const write = (level: LogLevel, message: string, fields?: LogFields): void => {
  if (!isLevelEnabled(level)) return;
  logOutput.write(formatLine(level, message, fields), level);
};

/** The logger: one method per level, each a message and optional top-level fields. */
export const logger = {
  /** Detail for debugging; written only with LOG_LEVEL=DEBUG. */
  debug: (message: string, fields?: LogFields) => write('DEBUG', message, fields),
  /** Something that happened as it should (an order fulfilled, a receipt forwarded). */
  info: (message: string, fields?: LogFields) => write('INFO', message, fields),
  /** Something odd that the service handled (an event ignored, a forward refused). */
  warn: (message: string, fields?: LogFields) => write('WARN', message, fields),
  /** Something that needs a person or a retry (an unexpected error, an effect whose outcome is unknown). */
  error: (message: string, fields?: LogFields) => write('ERROR', message, fields),
};

/** Parses LOG_LEVEL (case-insensitive; Powertools' TRACE counts as DEBUG, CRITICAL as ERROR). */
export const parseLogLevel = (text: string): LogLevel => {
  const upper = text.trim().toUpperCase();
  if (upper === 'TRACE') return 'DEBUG';
  if (upper === 'CRITICAL') return 'ERROR';
  if ((logLevels as readonly string[]).includes(upper)) return upper as LogLevel;
  throw new Error(`must be one of ${logLevels.join(', ')}, not ${JSON.stringify(text)}`);
};
