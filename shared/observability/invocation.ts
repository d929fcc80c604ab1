/**
 * The context of the invocation in progress, kept per asynchronous call chain
 * (AsyncLocalStorage), so that every log line and metric knows which request it belongs to
 * without passing it through the domain: the keys Powertools Logger adds to every line
 * (function_name, function_request_id, cold_start, correlation_id, xray_trace_id) and the ids
 * of what is in play (order_id, message_id, sim_id ...), added where they become known.
 *
 * Per call chain and not per module: a queue consumer processes the records of a batch
 * concurrently, and the local runtime runs many functions in one process at once; each record
 * and each request has a context of its own.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';

/** Fields of a log line, or keys of the invocation's context. */
export type LogFields = Record<string, unknown>;

/**
 * The context store, from Node's built-ins rather than an ES module import of node:async_hooks,
 * whose module facade (every export of the built-in, built at import) would cost every cold
 * start; the same class either way.
 */
const storage: AsyncLocalStorage<LogFields> = new (process.getBuiltinModule('node:async_hooks').AsyncLocalStorage)<LogFields>();

/** Function names that have already been invoked in this process (cold_start is true only for the first). */
const warm = new Set<string>();

/**
 * True on the first invocation of `functionName` in this process, false afterwards: a Lambda
 * container runs one function, so this is Powertools' cold_start; the local runtime hosts
 * every function in one process, and each has its own first invocation.
 */
export const takeColdStart = (functionName: string): boolean => {
  if (warm.has(functionName)) return false;
  warm.add(functionName);
  return true;
};

/** The X-Ray trace id of the invocation (the Root of `_X_AMZN_TRACE_ID`, set by Lambda per invocation), if any. */
export const xrayTraceId = (env: NodeJS.ProcessEnv = process.env): string | undefined =>
  /(?:^|;)Root=([^;]+)/.exec(env._X_AMZN_TRACE_ID ?? '')?.[1];

/** What the Lambda context gives every log line. */
export interface InvocationContext {
  functionName: string;
  awsRequestId: string;
}

/**
 * Runs `work` with a fresh invocation context: function_name, function_request_id and
 * cold_start from the Lambda context, xray_trace_id when tracing is on, and `keys` (the
 * correlation_id above all). Nested calls (a record of a batch) start from the outer context.
 */
export const withInvocation = <T>(context: InvocationContext, keys: LogFields, work: () => T): T => {
  const trace = xrayTraceId();
  return storage.run(
    {
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
      cold_start: takeColdStart(context.functionName),
      ...(trace ? { xray_trace_id: trace } : {}),
      ...keys,
    },
    work,
  );
};

/** Runs `work` with `keys` added to (a copy of) the current context: one record of a batch, one order. */
export const withLogKeys = <T>(keys: LogFields, work: () => T): T => storage.run({ ...(storage.getStore() ?? {}), ...keys }, work);

/**
 * Adds keys to the current context from here on (an order id once the message is parsed, a
 * SIM id once the route knows it): every later line of this invocation (or record) carries
 * them. Outside any invocation it does nothing.
 */
export const appendLogKeys = (keys: LogFields): void => {
  const store = storage.getStore();
  if (store) Object.assign(store, keys);
};

/** The current context's keys (empty outside an invocation). */
export const logKeys = (): LogFields => storage.getStore() ?? {};

/** The correlation id of the work in progress, if any: it travels on to queues and into the answer. */
export const correlationId = (): string | undefined => {
  const value = storage.getStore()?.correlation_id;
  return typeof value === 'string' ? value : undefined;
};

const answerCodeKey = Symbol('answer code');

/**
 * Notes the error code the HTTP answer of this invocation carries (kept out of the log lines:
 * a symbol key), so that the request's metrics can count 429s and auth failures by code.
 */
export const noteAnswerCode = (code: string): void => {
  const store = storage.getStore() as (LogFields & { [answerCodeKey]?: string }) | undefined;
  if (store) store[answerCodeKey] = code;
};

/** The error code noted for this invocation's answer, if any. */
export const answerCode = (): string | undefined => (storage.getStore() as { [answerCodeKey]?: string } | undefined)?.[answerCodeKey];
