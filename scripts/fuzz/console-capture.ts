/**
 * Sends console.log / info / warn / error of this process, and the JSON log and metric lines
 * the service's logger writes to stdout and stderr itself (shared/observability/logger.ts), to
 * a file while a fuzz run hosts the runtime in-process: the handlers log every refused input,
 * which would bury the report. Other writes to the streams (the run's progress) pass through.
 * The log stays for reading the server side of a failure.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { format } from 'node:util';

/** Redirects the console and the JSON lines to `path` (appending); returns the function that restores them. */
export const captureConsole = (path: string): (() => void) => {
  mkdirSync(dirname(path), { recursive: true });
  const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
  const saved = methods.map((name) => console[name]);
  for (const name of methods) {
    console[name] = (...args: unknown[]) => appendFileSync(path, `${format(...args)}\n`);
  }
  const streams = [process.stdout, process.stderr];
  const writes = streams.map((stream) => stream.write);
  streams.forEach((stream, index) => {
    const original = writes[index]!.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      if (typeof chunk === 'string' && chunk.startsWith('{')) {
        appendFileSync(path, chunk);
        return true;
      }
      return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write;
  });
  return () => {
    methods.forEach((name, index) => (console[name] = saved[index]!));
    streams.forEach((stream, index) => (stream.write = writes[index]!));
  };
};
