/**
 * The delayed work of a local stand-in (the SMS simulator's receipts, the AWS SMS emulator's
 * events, the operator emulator's confirmations): each timer is kept until it fires, so that
 * stopping the stand-in cancels whatever has not happened yet.
 */

/** Delayed work that can be cancelled all at once. */
export interface PendingTimers {
  /** Runs `work` after `ms`, unless cancelled first. */
  later(ms: number, work: () => void): void;
  /** Cancels every timer that has not fired. */
  cancelAll(): void;
}

/** A new, empty set of pending timers. */
export const pendingTimers = (): PendingTimers => {
  const timers = new Set<NodeJS.Timeout>();
  return {
    later: (ms, work) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        work();
      }, ms);
      timers.add(timer);
    },
    cancelAll: () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
};
