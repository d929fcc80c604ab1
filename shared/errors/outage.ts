/**
 * Outages against everything else. A consumer that applies records from outside (the operator
 * feed, the table's stream) refuses or sets aside a record that cannot be applied, alone, and
 * goes on; only an outage of a service it calls (throttling, a 5xx, a timeout, a dropped
 * connection) makes it give the whole message or batch back, to be tried again later, when the
 * same record will very likely apply. Told by what the AWS SDK and Node say of an error, never
 * by its message text.
 */

/** AWS error names that mean "try again later", whatever the service. */
const outageNames = new Set([
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'KmsThrottled',
  'OverLimit',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
  'SlowDown',
  'LimitExceededException',
  'InternalServerError',
  'InternalServerErrorException',
  'InternalFailure',
  'InternalError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TransactionConflictException',
  'TransactionInProgressException',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
  'AbortError',
]);

/** Node's codes of a connection that failed or broke (net, dns, undici). */
const networkCodes = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ERR_SOCKET_CONNECTION_TIMEOUT',
  'ERR_HTTP2_STREAM_ERROR',
  'ERR_HTTP2_GOAWAY_SESSION',
]);

/**
 * Thrown by the service's own code for a condition that passes with time, such as a SIM that
 * kept changing under eight attempts to write it: an outage for the classification below.
 */
export class TransientFailure extends Error {
  override name = 'TransientFailure';
}

interface ErrorShape {
  name?: unknown;
  code?: unknown;
  $fault?: unknown;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  cause?: unknown;
  CancellationReasons?: { Code?: string }[];
}

/**
 * True when an error is an outage (the call may well succeed if made again later): an AWS error
 * the SDK marks as the server's fault or retryable, a throttling, 5xx or timeout name, an HTTP
 * status of 429 or 5xx, a transaction cancelled only by conflicts with other transactions, a
 * Node network error (here or in its `cause`), or a TransientFailure. Anything else (a
 * ValidationException, a TypeError, a record the code cannot read) is about the request itself.
 */
export const isOutage = (error: unknown, depth = 0): boolean => {
  if (error instanceof TransientFailure) return true;
  if (typeof error !== 'object' || error === null) return false;
  const shape = error as ErrorShape;
  if (typeof shape.name === 'string' && outageNames.has(shape.name)) return true;
  if (shape.$fault === 'server' || shape.$retryable !== undefined) return true;
  const status = shape.$metadata?.httpStatusCode;
  if (typeof status === 'number' && (status === 429 || status >= 500)) return true;
  if (shape.name === 'TransactionCanceledException') {
    const codes = (shape.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None').filter((code) => code !== 'None');
    return codes.length > 0 && codes.every((code) => code === 'TransactionConflict' || code === 'ThrottlingError' || code === 'ProvisionedThroughputExceeded');
  }
  if (typeof shape.code === 'string' && (networkCodes.has(shape.code) || shape.code.startsWith('UND_ERR_'))) return true;
  return depth < 3 && shape.cause !== undefined && isOutage(shape.cause, depth + 1);
};

/** An error's short description for a refusal reason: its name and the first 200 characters of its message. */
export const errorReason = (error: unknown): string => {
  if (error instanceof Error) return `${error.name}: ${error.message.slice(0, 200)}`;
  return String(error).slice(0, 200);
};
