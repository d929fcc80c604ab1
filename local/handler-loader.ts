import { isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';

/** The repository root: handler paths in the route table and queue definitions are relative to it. */
export const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));

/** A Lambda handler as the local runtime calls it (async, or callback style). */
export type LambdaHandler = (event: unknown, context: Context, callback?: (error: unknown, result?: unknown) => void) => unknown;

const modules = new Map<string, Promise<LambdaHandler>>();

/**
 * Imports a handler module (a path relative to the repository root, e.g.
 * `functions/list-sims.ts`, or absolute) once per process and returns its `handler` export,
 * like a warm Lambda container. Works under tsx (npm start) and vitest, which both load .ts.
 */
export const loadHandler = (modulePath: string): Promise<LambdaHandler> => {
  const absolute = isAbsolute(modulePath) ? modulePath : join(repositoryRoot, modulePath);
  let loaded = modules.get(absolute);
  if (!loaded) {
    loaded = import(pathToFileURL(absolute).href).then((module: { handler?: unknown }) => {
      if (typeof module.handler !== 'function') throw new Error(`${modulePath} does not export a handler function`);
      return module.handler as LambdaHandler;
    });
    // A failed import (syntax error, missing file) is retried on the next request.
    loaded.catch(() => modules.delete(absolute));
    modules.set(absolute, loaded);
  }
  return loaded;
};

/**
 * Calls a handler the way the Lambda runtime does: an async handler's promise, or a
 * callback-style handler's callback, whichever settles first. Rejects when the handler
 * throws or does not finish within `timeoutMs`.
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
      const returned = handler(event, context, settle);
      if (returned && typeof (returned as Promise<unknown>).then === 'function') {
        (returned as Promise<unknown>).then((result) => settle(null, result), (error: unknown) => settle(error ?? new Error('handler rejected')));
      } else if (handler.length < 3) {
        settle(null, returned);
      }
    } catch (error) {
      settle(error ?? new Error('handler threw'));
    }
  });
