/**
 * `npm start -- --pretty`: the runtime's JSON log lines (shared/observability/logger.ts) and
 * EMF metric lines (metrics.ts), rendered for people, one line each:
 *
 *     13:00:01.234 INFO  send-sms        3f2a9c1e  sms submitted  message_id=m-1 sim_id=1001
 *     13:00:01.240 METRIC send-sms       3f2a9c1e  SmsSubmitted=1
 *
 * time, level, where (function, consumer or local component), the first 8 characters of the
 * correlation id, the message, then the other fields as key=value (objects as JSON). The
 * fields every line has (service, timestamp, request id, X-Ray id) are left out. A line that
 * is not such a JSON object (the banner, `Local API ready at ...`) is written as it is.
 * Without --pretty the runtime prints the JSON lines themselves, as a deployed function does.
 */

type Fields = Record<string, unknown>;

const hidden = new Set(['level', 'message', 'timestamp', 'service', 'function_name', 'function_request_id', 'cold_start', 'correlation_id', 'xray_trace_id', 'component', 'consumer']);

const colors: Record<string, string> = { DEBUG: '\x1b[90m', INFO: '\x1b[36m', WARN: '\x1b[33m', ERROR: '\x1b[31m', METRIC: '\x1b[35m' };
const reset = '\x1b[0m';

const clock = (timestamp: unknown): string => {
  const date = typeof timestamp === 'number' ? new Date(timestamp) : typeof timestamp === 'string' ? new Date(timestamp) : new Date();
  return Number.isNaN(date.getTime()) ? '--:--:--.---' : date.toISOString().slice(11, 23);
};

const valueText = (value: unknown): string => (typeof value === 'string' ? (/\s/.test(value) || value === '' ? JSON.stringify(value) : value) : JSON.stringify(value));

const where = (fields: Fields): string => {
  const name = fields.consumer ?? fields.component ?? fields.function_name ?? '';
  return `${String(name)}${fields.cold_start === true ? '*' : ''}`;
};

/** One line for people from one JSON log or EMF line; undefined when `line` is not one. */
export const prettyLine = (line: string, color = false): string | undefined => {
  if (!line.startsWith('{')) return undefined;
  let fields: Fields;
  try {
    fields = JSON.parse(line) as Fields;
  } catch {
    return undefined;
  }
  if (typeof fields !== 'object' || fields === null) return undefined;
  const correlation = typeof fields.correlation_id === 'string' ? fields.correlation_id.slice(0, 8) : '-';
  const paint = (level: string) => (color ? `${Object.hasOwn(colors, level) ? colors[level] : ''}${level.padEnd(6)}${reset}` : level.padEnd(6));
  if (typeof fields._aws === 'object' && fields._aws !== null) {
    const aws = fields._aws as { Timestamp?: number; CloudWatchMetrics?: Array<{ Metrics?: Array<{ Name: string }>; Dimensions?: string[][] }> };
    const directive = aws.CloudWatchMetrics?.[0];
    const names = (directive?.Metrics ?? []).map((metric) => metric.Name);
    const dimensions = [...new Set((directive?.Dimensions ?? []).flat())].filter((name) => name !== 'service');
    const field = (name: string) => `${name}=${valueText(Object.hasOwn(fields, name) ? fields[name] : undefined)}`;
    const text = [...names.map(field), ...dimensions.map(field)].join(' ');
    return `${clock(aws.Timestamp)} ${paint('METRIC')} ${''.padEnd(16)} ${correlation.padEnd(8)}  ${text}`;
  }
  if (typeof fields.level !== 'string' || typeof fields.message !== 'string') return undefined;
  const rest = Object.entries(fields)
    .filter(([key]) => !hidden.has(key))
    .map(([key, value]) => `${key}=${valueText(value)}`)
    .join(' ');
  return `${clock(fields.timestamp)} ${paint(fields.level)} ${where(fields).padEnd(16)} ${correlation.padEnd(8)}  ${fields.message}${rest ? `  ${rest}` : ''}`;
};

/** What prettyOutput wraps: a stream's write. */
export interface WritableLike {
  write: (chunk: string | Uint8Array, ...rest: any[]) => boolean;
  isTTY?: boolean;
}

/**
 * Makes `stream` render the JSON lines written to it (by the logger, the gateway, the
 * pollers, the simulators, and the functions run from their bundles alike) with prettyLine,
 * line by line; other text passes through unchanged. Returns the function that undoes it.
 */
export const prettyOutput = (stream: WritableLike, color = stream.isTTY === true): (() => void) => {
  const original = stream.write.bind(stream);
  let pending = '';
  stream.write = ((chunk: string | Uint8Array, ...rest: any[]) => {
    pending += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    if (lines.length === 0) return true;
    const text = lines.map((line) => prettyLine(line, color) ?? line).join('\n');
    return original(`${text}\n`, ...rest.filter((argument) => typeof argument === 'function'));
  }) as WritableLike['write'];
  return () => {
    if (pending) original(pending);
    pending = '';
    stream.write = original;
  };
};
