import { format } from 'node:util';

/** What the handlers logged while captured: the number of lines and the first errors. */
export interface CapturedConsole {
  lines: number;
  errors: string[];
}

/**
 * The handlers log JSON lines (warnings of ignored payment events, errors); while the runtime
 * sections run they are kept out of the report and counted, the first errors shown at the end.
 */
export const captureConsole = (): { captured: CapturedConsole; restore: () => void } => {
  const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug };
  const captured: CapturedConsole = { lines: 0, errors: [] };
  const keep = (level: string) => (...args: unknown[]) => {
    captured.lines += 1;
    const line = format(...args);
    // Node's own warnings (e.g. the AWS SDK's Node version notice) are not the handlers' errors.
    if (level === 'error' && !line.startsWith('(node:') && captured.errors.length < 5) captured.errors.push(line.slice(0, 400));
  };
  console.log = keep('log');
  console.info = keep('info');
  console.warn = keep('warn');
  console.error = keep('error');
  console.debug = keep('debug');
  return { captured, restore: () => Object.assign(console, saved) };
};
