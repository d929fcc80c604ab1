import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { DeveloperDeps } from '../../shared/http/developer-route';
import { windowLimits, type WindowLimit } from '../../shared/rate-limit/limits';
import { consumeRateLimit, type RateLimitOutcome } from '../../shared/rate-limit/rate-limit';
import { SlidingLog } from './support/sliding-log';
import { tableWithSeed } from './support/invoke';

/**
 * Property-based tests of the rate limiter against a brute-force sliding log
 * (support/sliding-log.ts), on DynamoDB Local, over random arrival schedules at random clock
 * positions: sequential arrivals (every answer compared with the oracle) and concurrent bursts
 * (the admitted count compared with the oracle, every trailing window checked).
 */

let deps: DeveloperDeps;

beforeAll(async () => {
  ({ deps } = await tableWithSeed({}, { now: 0 }));
});

/** The specification's limits scaled down (same shape: an approximated largest window), so the hour-like limit binds within a short schedule. */
const scaledLimits: readonly WindowLimit[] = [
  { ...windowLimits[0]!, limit: 30, perSlot: 3, windowMs: 120_000 },
  { ...windowLimits[1]!, limit: 12, windowMs: 30_000 },
  { ...windowLimits[2]!, limit: 4, windowMs: 5_000 },
];

const remaining = (outcome: RateLimitOutcome, limit: WindowLimit) => Number(outcome.headers[`X-RateLimit-Remaining-${limit.header}`]);

/** One caller's arrivals: gaps (ms) between them, some of them list requests. */
const arrivals = fc.array(
  fc.record({
    gapMs: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 300 }),
      fc.integer({ min: 300, max: 6_000 }),
      // Just under, at and just over each window's length.
      fc.constantFrom(4_999, 5_000, 5_001, 9_999, 10_000, 10_001, 29_999, 30_000, 59_999, 60_000),
    ),
    list: fc.boolean(),
  }),
  { minLength: 1, maxLength: 80 },
);

/** A clock position anywhere, to the millisecond (not aligned to any window). */
const startTime = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) });

/**
 * Sends `schedule` one request after another and checks each answer against the oracle: the
 * exact limits admit and refuse exactly as the sliding log does (code, Retry-After, remaining),
 * the approximated one never lets the log exceed it and refuses at most perSlot - 1 early.
 */
const checkSequential = async (limits: readonly WindowLimit[], start: number, schedule: Array<{ gapMs: number; list: boolean }>) => {
  const userId = `seq-${randomUUID()}`;
  const oracle = new SlidingLog(limits);
  const exact = limits.filter((limit) => limit.perSlot === 1);
  const approximate = limits.filter((limit) => limit.perSlot > 1);
  let time = start;
  for (const { gapMs, list } of schedule) {
    time += gapMs;
    const now = time;
    const outcome = await consumeRateLimit({ ...deps, now: () => now }, { userId, customerId: 'root', list }, limits);
    const refusals = oracle.exactRefusals(now, list);
    const exactRefusals = refusals.filter((refusal) => !approximate.some((limit) => limit.code === refusal.code));
    const nearlyFull = approximate.filter((limit) => oracle.countIn(now, limit.windowMs) >= limit.limit - limit.perSlot + 1);
    if (!outcome.rejection) {
      expect(exactRefusals, `admitted at ${now} although the oracle refuses`).toEqual([]);
      oracle.admit(now, list);
      for (const limit of exact) expect(remaining(outcome, limit)).toBe(limit.limit - oracle.countIn(now, limit.windowMs));
    } else {
      // Refused: by an exact rule the oracle also applies, or by an approximated limit that is nearly full.
      const possible = [...exactRefusals.map((refusal) => refusal.code), ...nearlyFull.map((limit) => limit.code)];
      expect(possible, `refused at ${now} with ${outcome.rejection.code}`).toContain(outcome.rejection.code);
      const longest = Math.max(0, ...exactRefusals.map((refusal) => refusal.waitMs));
      const retryAfter = Math.max(1, Math.ceil(longest / 1000));
      if (nearlyFull.length === 0) {
        // The exact rules alone decide: the longest wait (ties: the larger window, then the poll interval).
        expect(outcome.rejection.code).toBe(exactRefusals.find((refusal) => refusal.waitMs === longest)!.code);
        expect(outcome.rejection.extra).toEqual({ retry_after_seconds: retryAfter });
        expect(outcome.rejection.headers).toEqual({ 'Retry-After': String(retryAfter) });
      } else if (exactRefusals.length > 0) {
        expect((outcome.rejection.extra as { retry_after_seconds: number }).retry_after_seconds).toBeGreaterThanOrEqual(retryAfter);
      }
    }
    for (const limit of approximate) {
      const trueRemaining = limit.limit - oracle.countIn(now, limit.windowMs);
      expect(remaining(outcome, limit)).toBeLessThanOrEqual(trueRemaining);
      expect(remaining(outcome, limit)).toBeGreaterThanOrEqual(trueRemaining - (limit.perSlot - 1));
    }
  }
  expect(oracle.violations()).toEqual([]);
};

/**
 * Sends bursts of concurrent requests (each burst at one instant, or spread over a few ms) and
 * checks that no trailing window ever holds more than its limit and that a same-instant burst
 * admits exactly as many requests as the oracle has room for.
 */
const checkConcurrent = async (
  limits: readonly WindowLimit[],
  start: number,
  bursts: Array<{ gapMs: number; size: number; lists: number; spreadMs: number }>,
) => {
  const userId = `par-${randomUUID()}`;
  const oracle = new SlidingLog(limits);
  let time = start;
  for (const { gapMs, size, lists, spreadMs } of bursts) {
    time += gapMs;
    const at = time;
    const requests = Array.from({ length: size }, (_, index) => ({ list: index < lists, now: at + (spreadMs === 0 ? 0 : (index * 7) % (spreadMs + 1)) }));
    // What the oracle has room for at `at` (only meaningful for a same-instant burst). The limiter
    // counts a request stamped later than `at` (an earlier burst's spread) as taking room, so it
    // admits at least `room`. It may admit up to `trueRoom`: such a request may have taken over
    // the slot of one that is still in the window at `at` but not in the window of that request,
    // and no trailing window then holds more than its limit (violations() checks that). The two
    // are equal when no admitted request is stamped later than `at`.
    const room = Math.min(...limits.map((limit) => limit.limit - oracle.countAfter(at - limit.windowMs)));
    const trueRoom = oracle.roomAt(at);
    const listAllowed = oracle.exactRefusals(at, true).every((refusal) => refusal.code !== 'rate_limited_poll_interval');
    // An approximated limit may refuse up to perSlot - 1 early: exactness is checked only while it is clear of that.
    const approximationClear = limits.every((limit) => limit.perSlot === 1 || oracle.countAfter(at - limit.windowMs) + size < limit.limit - limit.perSlot);
    const outcomes = await Promise.all(
      requests.map((request) => consumeRateLimit({ ...deps, now: () => request.now }, { userId, customerId: 'root', list: request.list }, limits)),
    );
    outcomes.forEach((outcome, index) => {
      if (!outcome.rejection) oracle.admit(requests[index]!.now, requests[index]!.list);
    });
    if (spreadMs === 0) {
      const listCount = Math.min(lists, size);
      const eligible = size - listCount + (listAllowed && listCount > 0 ? 1 : 0);
      const admitted = outcomes.filter((outcome) => !outcome.rejection).length;
      const most = Math.max(0, Math.min(trueRoom, eligible));
      if (approximationClear) {
        expect(admitted, `burst of ${size} at ${at}`).toBeGreaterThanOrEqual(Math.max(0, Math.min(room, eligible)));
        if (room === trueRoom) expect(admitted, `burst of ${size} at ${at}`).toBe(most);
      }
      expect(admitted, `burst of ${size} at ${at}`).toBeLessThanOrEqual(most);
    }
    expect(oracle.violations()).toEqual([]);
  }
};

const bursts = fc.array(
  fc.record({
    gapMs: fc.oneof(fc.integer({ min: 0, max: 12_000 }), fc.constantFrom(1, 4_999, 5_000, 9_999, 10_000, 10_001, 60_000)),
    size: fc.integer({ min: 1, max: 40 }),
    lists: fc.integer({ min: 0, max: 3 }),
    spreadMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 40 })),
  }),
  { minLength: 1, maxLength: 8 },
);

describe('rate limits against a sliding-log oracle (fast-check, DynamoDB Local)', { timeout: 120_000 }, () => {
  it('answers sequential arrivals exactly as the oracle does, with the specification limits', async () => {
    await fc.assert(fc.asyncProperty(startTime, arrivals, (start, schedule) => checkSequential(windowLimits, start, schedule)), {
      numRuns: 25,
    });
  });

  it('answers sequential arrivals as the oracle does with scaled limits, the approximated window refusing at most perSlot - 1 early', async () => {
    const denseArrivals = fc.array(
      fc.record({ gapMs: fc.oneof(fc.integer({ min: 0, max: 2_500 }), fc.constantFrom(4_999, 5_000, 29_999, 30_000)), list: fc.boolean() }),
      { minLength: 20, maxLength: 120 },
    );
    await fc.assert(fc.asyncProperty(startTime, denseArrivals, (start, schedule) => checkSequential(scaledLimits, start, schedule)), {
      numRuns: 25,
    });
  });

  it('admits exactly what the oracle has room for in concurrent bursts and never exceeds a trailing window', async () => {
    await fc.assert(fc.asyncProperty(startTime, bursts, (start, schedule) => checkConcurrent(windowLimits, start, schedule)), {
      numRuns: 8,
    });
  });

  it('never exceeds a trailing window of the scaled limits under concurrent bursts', async () => {
    await fc.assert(fc.asyncProperty(startTime, bursts, (start, schedule) => checkConcurrent(scaledLimits, start, schedule)), {
      numRuns: 8,
    });
  });

  it('admits at most 10 of concurrent bursts straddling a 10-second clock mark', async () => {
    const oracle = new SlidingLog(windowLimits);
    const userId = `edge-${randomUUID()}`;
    const mark = Date.UTC(2026, 10, 20, 10, 0, 10);
    const times = [...Array.from({ length: 150 }, (_, index) => mark - 1 - (index % 100)), ...Array.from({ length: 150 }, (_, index) => mark + (index % 100))];
    const outcomes = await Promise.all(times.map((now) => consumeRateLimit({ ...deps, now: () => now }, { userId, customerId: 'root', list: false })));
    outcomes.forEach((outcome, index) => {
      if (!outcome.rejection) oracle.admit(times[index]!, false);
    });
    expect(outcomes.filter((outcome) => !outcome.rejection).length).toBe(10);
    expect(oracle.violations()).toEqual([]);
  });
});
