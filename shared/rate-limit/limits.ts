/**
 * The Area A rate limits (SPEC.md, "Limits"), enforced per user and customer group (the
 * user of the bearer token with the customer of the API key).
 */

/** A fixed-window request limit. */
export interface WindowLimit {
  /** Name in the X-RateLimit-*-<Name> headers. */
  header: 'Burst' | 'Minute' | 'Hour';
  /** Prefix of the counter attribute; the window's index follows (`b_176...`). */
  attribute: 'b' | 'm' | 'h';
  /** Requests admitted per window. */
  limit: number;
  /** Window length; windows are aligned to multiples of it since the epoch. */
  windowMs: number;
  /** Error code of a request refused by this limit. */
  code: string;
  /** What the 429's detail says. */
  detail: string;
}

/** Burst, minute and hour limits, largest window first (the order used to break ties). */
export const windowLimits: readonly WindowLimit[] = [
  {
    header: 'Hour',
    attribute: 'h',
    limit: 1500,
    windowMs: 3_600_000,
    code: 'rate_limited_hour',
    detail: 'Rate limit exceeded: at most 1500 requests per hour.',
  },
  {
    header: 'Minute',
    attribute: 'm',
    limit: 60,
    windowMs: 60_000,
    code: 'rate_limited_minute',
    detail: 'Rate limit exceeded: at most 60 requests per minute.',
  },
  {
    header: 'Burst',
    attribute: 'b',
    limit: 10,
    windowMs: 10_000,
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
