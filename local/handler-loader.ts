import { isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { asInvocationOf } from './invocation-scope';

/** The repository root: handler paths in the route table and queue definitions are relative to it. */
export const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

/** A Lambda handler as the local runtime calls it (async, or callback style). */
export type LambdaHandler = (event: unknown, context: Context, callback?: (error: unknown, result?: unknown) => void) => unknown;

const modules = new Map<string, Promise<LambdaHandler>>();
let bundleFiles: Map<string, string> | undefined;

const absoluteModule = (modulePath: string): string => (isAbsolute(modulePath) ? modulePath : join(repositoryRoot, modulePath));

/**
 * Makes `loadHandler` import each handler from its esbuild bundle (`files`: handler module
 * relative to the repository root, as in the route table → the built index.mjs, from
 * local/bundle-build.ts), or from the TypeScript sources again (`undefined`). One setting per
 * process, like the process.env the handlers read: startLocalRuntime sets it for `bundled`
 * and clears it on stop. A bundle has module state (caches, clients) of its own, apart from
 * the source modules'.
 */
export const useBundledHandlers = (files: Record<string, string> | undefined): void => {
  bundleFiles = files ? new Map(Object.entries(files).map(([handler, file]) => [absoluteModule(handler), file])) : undefined;
};

/**
 * The file `loadHandler` imports for a handler module: its bundle while bundled handlers are
 * in use, else the module itself. Throws for a module without a bundle in bundled mode
 * rather than quietly running its source.
 */
export const handlerFile = (modulePath: string): string => {
  const absolute = absoluteModule(modulePath);
  if (!bundleFiles) return absolute;
  const bundle = bundleFiles.get(absolute);
  if (!bundle) throw new Error(`${modulePath} has no bundle: only the functions of the stack run bundled`);
  return bundle;
};

/** Every file a handler was imported from in this process so far, in import order. */
export const importedHandlerFiles = (): string[] => [...modules.keys()];

/**
 * Imports a handler module (a path relative to the repository root, e.g.
 * `functions/list-sims.ts`, or absolute) once per process and returns its `handler` export,
 * like a warm Lambda container. Works under tsx (npm start) and vitest, which both load .ts.
 * While bundled handlers are in use (`useBundledHandlers`) it imports the module's bundle
 * instead, natively (vitest.config.ts externalises the bundle folder from vitest's transform).
 */
export const loadHandler = (modulePath: string): Promise<LambdaHandler> => {
  let file: string;
  try {
    file = handlerFile(modulePath);
  } catch (error) {
    return Promise.reject(error);
  }
  let loaded = modules.get(file);
  if (!loaded) {
    loaded = import(pathToFileURL(file).href).then((module: { handler?: unknown }) => {
      if (typeof module.handler !== 'function') throw new Error(`${modulePath} does not export a handler function`);
      return module.handler as LambdaHandler;
    });
    // A failed import (syntax error, missing file) is retried on the next request.
    loaded.catch(() => modules.delete(file));
    modules.set(file, loaded);
  }
  return loaded;
};

/**
 * Calls a handler the way the Lambda runtime does: an async handler's promise, or a
 * callback-style handler's callback, whichever settles first. Rejects when the handler
 * throws or does not finish within `timeoutMs`. The call runs as an invocation of
 * `context.functionName`, whose AWS calls a recording notes (./invocation-scope.ts, ./aws-call-recorder.ts).
 */
export const invokeHandler = (handler: LambdaHandler, event: unknown, context: Context, timeoutMs: number): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`)),
      timeoutMs,
    );
    const settle = (error: unknown, result?: unknown) => {
      clearTimeout(timer);
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(result);
    };
    try {
      const returned = asInvocationOf(context.functionName, () => handler(event, context, settle));
      if (returned && typeof (returned as Promise<unknown>).then === 'function') {
        (returned as Promise<unknown>).then((result) => settle(null, result), (error: unknown) => settle(error ?? new Error('handler rejected')));
      } else if (handler.length < 3) {
        settle(null, returned);
      }
    } catch (error) {
      settle(error ?? new Error('handler threw'));
    }
  });
