/**
 * Sends console.log / info / warn / error of this process to a file while a fuzz run hosts
 * the runtime in-process: the handlers log every refused input, which would bury the
 * report. The log stays for reading the server side of a failure.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { format } from 'node:util';

/** Redirects the console to `path` (appending); returns the function that restores it. */
export const captureConsole = (path: string): (() => void) => {
  mkdirSync(dirname(path), { recursive: true });
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const saved = methods.map((name) => console[name]);
  for (const name of methods) {
    console[name] = (...args: unknown[]) => appendFileSync(path, `${format(...args)}\n`);
  }
  return () => methods.forEach((name, index) => (console[name] = saved[index]!));
};
