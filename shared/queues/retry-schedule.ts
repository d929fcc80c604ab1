/**
 * When a failed queue job is tried again: exponential backoff with jitter, for the consumers
 * that schedule their own retries (shared/topology/queues.ts `consumerSchedulesRetries`): webhook
 * deliveries (issue #15, point 4: over about a day) and SIM actions to the operator (issue #33).
 * The webhooks' schedule is described here as the first example. The schedule is configuration (WEBHOOK_RETRY_SCHEDULE_SECONDS,
 * default 1 min, 5 min, 30 min, 2 h, 6 h and 12 h after attempts 1 to 6: about 20.6 hours,
 * 7 attempts; shared/config/function-config.ts), so tests use seconds. The number of attempts
 * is the queue's maxReceiveCount (shared/topology/queues.ts): a schedule shorter than that
 * repeats its last step.
 */

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
