/** What the developer console did (its Pay, Decline and Cancel), newest first, shown at the top of its page. */

/** One action the console took. */
export interface ConsoleActivity {
  at: string;
  /** What was done, e.g. `Paid order 0b5e… (pi_…): succeeded (HTTP 200); order fulfilled`. */
  summary: string;
}

/** The console's memory of its own actions (the last `capacity`), for this instance only. */
export class ActivityLog {
  private readonly kept: ConsoleActivity[] = [];

  constructor(private readonly capacity = 20) {}

  /** Records one action. */
  record(summary: string, at = new Date()): void {
    this.kept.unshift({ at: at.toISOString(), summary });
    this.kept.splice(this.capacity);
  }

  /** Newest first. */
  entries(): ConsoleActivity[] {
    return [...this.kept];
  }
}
