/**
 * The Area A rate limits (SPEC.md, "Limits"), enforced per user and customer group (the
 * user of the bearer token with the customer of the API key), over trailing (sliding)
 * windows: "10 requests per 10 seconds" means any 10 seconds, not a window on the clock.
 */

/**
 * A sliding-window request limit, kept as a ring of `slots` (shared/rate-limit/slots.ts).
 * With `perSlot` 1 each slot holds the time of one admitted request and the limit is exact;
 * with `perSlot` > 1 a slot holds up to that many requests and the time of its newest one,
 * and stays taken until that newest one leaves the window: never more than `limit` in any
 * window, at the price of refusing up to `perSlot - 1` requests early.
 */
export interface WindowLimit {
  /** Name in the X-RateLimit-*-<Name> headers. */
  header: 'Burst' | 'Minute' | 'Hour';
  /** Prefix of the slot attributes: `<attribute><i>` holds a time, `<attribute>n<i>` a count. */
  attribute: 'b' | 'm' | 'h';
  /** Requests admitted in any trailing window. */
  limit: number;
  /** Length of the trailing window. */
  windowMs: number;
  /** Requests one slot holds; slots × perSlot = limit. */
  perSlot: number;
  /** Error code of a request refused by this limit. */
  code: string;
  /** What the 429's detail says. */
  detail: string;
}

/** Number of slots of a limit. */
export const slotCount = (limit: WindowLimit): number => limit.limit / limit.perSlot;

/**
 * Burst, minute and hour limits, largest window first (the order used to break ties). Burst
 * and minute are exact (one slot per request). The hour holds 15 requests a slot in 100
 * slots: it never admits more than 1,500 in any trailing hour and refuses at most 14 requests
 * (under 1 %) early, so that the item stays about 2.5 KB instead of 1,500 timestamps.
 */
export const windowLimits: readonly WindowLimit[] = [
  {
    header: 'Hour',
    attribute: 'h',
    limit: 1500,
    windowMs: 3_600_000,
    perSlot: 15,
    code: 'rate_limited_hour',
    detail: 'Rate limit exceeded: at most 1500 requests per hour.',
  },
  {
    header: 'Minute',
    attribute: 'm',
    limit: 60,
    windowMs: 60_000,
    perSlot: 1,
    code: 'rate_limited_minute',
    detail: 'Rate limit exceeded: at most 60 requests per minute.',
  },
  {
    header: 'Burst',
    attribute: 'b',
    limit: 10,
    windowMs: 10_000,
    perSlot: 1,
    code: 'rate_limited_burst',
    detail: 'Rate limit exceeded: at most 10 requests per 10 seconds.',
  },
];

/** Minimum time between two list requests. */
export const pollInterval = {
  ms: 5_000,
  code: 'rate_limited_poll_interval',
  detail: 'List requests must be at least 5 seconds apart.',
} as const;
