import type { RebuildProgress } from '../shared/sim-lists/rebuild';

/** Where progress is written: a line writer, and whether it may be redrawn in place (a terminal). */
export interface ProgressOutput {
  err: (line: string) => void;
  /** Writes without a line end (redrawn with a carriage return); absent: whole lines, at most every 2 s. */
  redraw?: (text: string) => void;
}

const width = 30;
const numberFormat = new Intl.NumberFormat('en-GB');

/** One line of a bar: `[#######-------]  42% marking 420,000 of 1,000,000 SIMs of acme`. */
export const progressLine = (progress: RebuildProgress): string => {
  const share = progress.total > 0 ? Math.min(1, progress.done / progress.total) : 0;
  const filled = Math.round(share * width);
  const what = progress.phase === 'settling' ? 'counted by the index' : progress.phase === 'cleaning' ? 'old scope items deleted, of' : 'SIMs';
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% ${progress.phase} ${numberFormat.format(progress.done)} of ${numberFormat.format(progress.total)} ${what} (${progress.groupId})`;
};

/**
 * A progress bar for a long admin command (rebuild-list-index): redrawn in place on a terminal,
 * else a line on each phase change and at most every 2 seconds, so a log stays readable.
 */
export const progressBar = (output: ProgressOutput) => {
  let lastPhase = '';
  let lastLine = 0;
  let drawn = false;
  return {
    update: (progress: RebuildProgress): void => {
      const line = progressLine(progress);
      if (output.redraw) {
        output.redraw(`\r${line}`);
        drawn = true;
        return;
      }
      if (progress.phase !== lastPhase || Date.now() - lastLine >= 2_000) {
        output.err(line);
        lastPhase = progress.phase;
        lastLine = Date.now();
      }
    },
    done: (): void => {
      if (drawn) output.redraw?.('\n');
    },
  };
};
