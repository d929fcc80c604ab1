import { pollInterval, type WindowLimit } from '../../../shared/rate-limit/limits';

/**
 * A brute-force sliding log: the oracle the rate limiter is checked against. It keeps every
 * admitted request's time and answers, for a request at `time`, what the exact limits of the
 * specification allow ("10 requests per 10 seconds" read as any 10 seconds: a request at t is
 * admitted when fewer than `limit` admitted requests lie in (t - window, t]).
 */
export class SlidingLog {
  private readonly admitted: number[] = [];
  private lastList: number | undefined;

  constructor(private readonly limits: readonly WindowLimit[]) {}

  /** Admitted requests after `time` (later ones included: a request stamped by a clock ahead of ours still counts). */
  countAfter(time: number): number {
    return this.admitted.filter((admittedAt) => admittedAt > time).length;
  }

  /**
   * What a same-instant burst at `time` can add without any trailing window exceeding its limit:
   * every window of each limit that holds `time` is checked (those ending at `time` and at each
   * request stamped after it, less than a window later). Requests stamped ahead of `time` by an
   * earlier burst's spread take room only from the windows they share with it, so this can be
   * more than `limit - countAfter(time - windowMs)`, which counts them in every window.
   */
  roomAt(time: number): number {
    return Math.min(
      ...this.limits.map((limit) => {
        const ends = [time, ...this.admitted.filter((admittedAt) => admittedAt > time && admittedAt < time + limit.windowMs)];
        return limit.limit - Math.max(...ends.map((end) => this.countIn(end, limit.windowMs)));
      }),
    );
  }

  /** Admitted requests in (time - windowMs, time]. */
  countIn(time: number, windowMs: number): number {
    return this.admitted.filter((admittedAt) => admittedAt > time - windowMs && admittedAt <= time).length;
  }

  /**
   * The exact refusals of a request at `time`: each limit (and the poll interval) that is full,
   * with the time until it would have room (ms). Empty when the exact rules admit it.
   */
  exactRefusals(time: number, list: boolean): Array<{ code: string; waitMs: number }> {
    const refusals: Array<{ code: string; waitMs: number }> = [];
    for (const limit of this.limits) {
      const inWindow = this.admitted.filter((admittedAt) => admittedAt > time - limit.windowMs && admittedAt <= time).sort((a, b) => a - b);
      if (inWindow.length >= limit.limit) {
        // The request fits once all but limit - 1 of them have left the window.
        refusals.push({ code: limit.code, waitMs: inWindow[inWindow.length - limit.limit]! + limit.windowMs - time });
      }
    }
    if (list && this.lastList !== undefined && this.lastList > time - pollInterval.ms) {
      refusals.push({ code: pollInterval.code, waitMs: this.lastList + pollInterval.ms - time });
    }
    return refusals;
  }

  /** Records an admitted request. */
  admit(time: number, list: boolean): void {
    this.admitted.push(time);
    if (list && (this.lastList === undefined || time > this.lastList)) this.lastList = time;
  }

  /** Every trailing window that holds more than its limit: empty when the log is within limits. */
  violations(): Array<{ code: string; at: number; count: number }> {
    const sorted = [...this.admitted].sort((a, b) => a - b);
    const found: Array<{ code: string; at: number; count: number }> = [];
    for (const limit of this.limits) {
      let first = 0;
      for (let index = 0; index < sorted.length; index += 1) {
        while (sorted[first]! <= sorted[index]! - limit.windowMs) first += 1;
        if (index - first + 1 > limit.limit) found.push({ code: limit.code, at: sorted[index]!, count: index - first + 1 });
      }
    }
    return found;
  }
}
