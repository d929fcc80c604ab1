import { vi } from 'vitest';

/** A parsed JSON log line (shared/observability/logger.ts) or EMF line (metrics.ts). */
export type LogLine = Record<string, unknown>;

/** Lines being captured: everything written so far, and the function that stops capturing. */
export interface LogCapture {
  lines: () => LogLine[];
  restore: () => void;
}

/**
 * Captures what this process writes to stdout and stderr, line by line, keeping the JSON
 * objects (log lines and EMF lines). It reads the streams, not the logger module, so it sees
 * the lines of the functions run from their bundles (the bundled project) as well as from the
 * sources; lines are not passed on while captured.
 */
export const captureLogLines = (): LogCapture => {
  const captured: LogLine[] = [];
  const spies = [process.stdout, process.stderr].map((stream) =>
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown) => {
      for (const text of String(chunk).split('\n')) {
        if (!text.startsWith('{')) continue;
        try {
          captured.push(JSON.parse(text) as LogLine);
        } catch {
          // Not a JSON line.
        }
      }
      return true;
    }) as typeof stream.write),
  );
  return { lines: () => [...captured], restore: () => spies.forEach((spy) => spy.mockRestore()) };
};

/** Runs `action` while capturing, and returns the JSON lines it wrote. */
export const logLinesOf = async (action: () => Promise<unknown>): Promise<LogLine[]> => {
  const capture = captureLogLines();
  try {
    await action();
    return capture.lines();
  } finally {
    capture.restore();
  }
};

/** The log lines among `lines` (not the EMF lines). */
export const logEntries = (lines: LogLine[]): LogLine[] => lines.filter((line) => !('_aws' in line));

/** The EMF lines among `lines`. */
export const metricLines = (lines: LogLine[]): LogLine[] => lines.filter((line) => '_aws' in line);
