/**
 * When a failed delivery is tried again (issue #15, point 4): exponential backoff with
 * jitter over about a day. The default schedule waits 1 min, 5 min, 30 min, 2 h, 6 h and
 * 12 h after attempts 1 to 6 (about 20.6 hours, 7 attempts); WEBHOOK_RETRY_SCHEDULE_SECONDS
 * replaces it (tests use seconds). The number of attempts is the queue's maxReceiveCount
 * (shared/topology/queues.ts): a schedule shorter than that repeats its last step.
 */
export const defaultRetryScheduleSeconds = [60, 300, 1800, 7200, 21_600, 43_200];

/** The longest wait SQS allows through ChangeMessageVisibility (12 h) less a margin. */
export const maxRetryDelaySeconds = 43_000;

/**
 * The wait before the attempt after `attempt` (1-based): the schedule's step with ±20 %
 * jitter (so that a receiver that was down is not hit by every retry at the same second),
 * whole seconds, at most maxRetryDelaySeconds.
 */
export const retryDelaySeconds = (schedule: readonly number[], attempt: number, random: () => number = Math.random): number => {
  const step = schedule[Math.min(attempt, schedule.length) - 1] ?? 60;
  const jittered = Math.round(step * (0.8 + 0.4 * random()));
  return Math.min(Math.max(jittered, step > 0 ? 1 : 0), maxRetryDelaySeconds);
};

/** Parses WEBHOOK_RETRY_SCHEDULE_SECONDS: comma-separated whole seconds, at least one. */
export const parseRetrySchedule = (text: string): number[] => {
  const steps = text.split(',').map((part) => part.trim());
  if (steps.length === 0 || steps.some((step) => !/^\d{1,6}$/.test(step))) {
    throw new Error(`must be comma-separated whole seconds (e.g. 60,300,1800), not ${JSON.stringify(text)}`);
  }
  return steps.map(Number);
};
