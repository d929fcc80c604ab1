import type { RebuildProgress } from '../shared/sim-lists/rebuild';

/** Where progress is written: a line writer, and whether it may be redrawn in place (a terminal). */
export interface ProgressOutput {
  err: (line: string) => void;
  /** Writes without a line end (redrawn with a carriage return); absent: whole lines, at most every 2 s. */
  redraw?: (text: string) => void;
}

const width = 30;
const numberFormat = new Intl.NumberFormat('en-GB');

/** The bar and percentage of a share done: `[#######-------]  42%`. */
export const barOf = (done: number, total: number): string => {
  const share = total > 0 ? Math.min(1, done / total) : 0;
  const filled = Math.round(share * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%`;
};

/** A count as people read it (`1,000,000`). */
export const formatCount = (value: number): string => numberFormat.format(value);

/** One line of a rebuild's bar: `[#######-------]  42% marking 420,000 of 1,000,000 SIMs (acme)`. */
export const progressLine = (progress: RebuildProgress): string => {
  const what = progress.phase === 'settling' ? 'counted by the index' : progress.phase === 'cleaning' ? 'old scope items deleted, of' : 'SIMs';
  return `${barOf(progress.done, progress.total)} ${progress.phase} ${formatCount(progress.done)} of ${formatCount(progress.total)} ${what} (${progress.groupId})`;
};

/**
 * A progress bar for a long admin command (rebuild-list-index, feed): redrawn in place on a
 * terminal, else a line on each phase change and at most every 2 seconds, so a log stays
 * readable. `format` makes the line of a progress (a rebuild's by default).
 */
export const progressBar = <Progress extends { phase: string } = RebuildProgress>(
  output: ProgressOutput,
  format: (progress: Progress) => string = progressLine as unknown as (progress: Progress) => string,
) => {
  let lastPhase = '';
  let lastLine = 0;
  let drawn = false;
  return {
    update: (progress: Progress): void => {
      const line = format(progress);
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
