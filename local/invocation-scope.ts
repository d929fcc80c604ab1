/**
 * Which function's invocation the current code runs in, for the AWS call recorder
 * (./aws-call-recorder.ts): an AsyncLocalStorage scope around each invocation the runtime
 * makes (./handler-loader.ts `invokeHandler`), only while something watches the invocations,
 * so that a run without a recording (npm start, the benchmark) invokes exactly as before.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<string>();
let watcher: ((functionName: string) => void) | undefined;

/**
 * Runs `invoke` as an invocation of `functionName` (a route or consumer name): inside its
 * scope while invocations are watched, else as it is.
 */
export const asInvocationOf = <T>(functionName: string, invoke: () => T): T => {
  if (!watcher) return invoke();
  watcher(functionName);
  return scope.run(functionName, invoke);
};

/** The function whose invocation the caller runs in; undefined outside every invocation or while none is watched. */
export const runningFunction = (): string | undefined => scope.getStore();

/** Starts (a callback, told each invocation's function) or stops (undefined) watching the invocations. */
export const watchInvocations = (onInvocation: ((functionName: string) => void) | undefined): void => {
  if (onInvocation && watcher) throw new Error('the invocations are watched already');
  watcher = onInvocation;
};
