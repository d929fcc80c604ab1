import type { Targets } from './targets';

/** What every section of the benchmark gets: where to record targets and notes, and a progress log. */
export interface SectionContext {
  targets: Targets;
  /** Notes for RESULTS.md (skipped routes, caveats of this run). */
  notes: string[];
  /** A progress line on stderr (the table goes to stdout). */
  log: (line: string) => void;
}
