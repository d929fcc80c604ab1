/**
 * The pure part of the rate limiter: given the stored rate-limit item of one (user, customer)
 * and the time, which slot of each limit a request would take, or why and for how long it
 * must wait. No I/O; shared/rate-limit/rate-limit.ts turns a plan into one conditional write.
 *
 * Each limit is a ring of slots (limits.ts). A slot is *live* while the newest request it
 * holds is inside the trailing window (`time > now - windowMs`), else *free*. Every request
 * admitted in the trailing window sits in a live slot, and a live slot holds at most
 * `perSlot` of them, so the window never holds more than `limit`.
 */
import { pollInterval, slotCount, type WindowLimit } from './limits';

/** The number attributes of the stored item (slot times and counts, `last_list_ms`). */
export type LimiterState = Readonly<Record<string, number>>;

/** Attribute holding the time (epoch ms) of the last admitted list request. */
export const lastListAttribute = 'last_list_ms';

/** Attribute of slot `index`'s time: the newest request it holds (epoch ms). */
export const slotTimeAttribute = (limit: WindowLimit, index: number): string => `${limit.attribute}${index}`;

/** Attribute of slot `index`'s count (only for limits with more than one request per slot). */
export const slotCountAttribute = (limit: WindowLimit, index: number): string => `${limit.attribute}n${index}`;

/** How a request takes a slot: `claim` a free one, or `join` a live one that has room. */
export interface SlotChoice {
  limit: WindowLimit;
  index: number;
  kind: 'claim' | 'join';
}

/** Why a request must wait: the limit that keeps it out longest, and for how long. */
export interface Refusal {
  code: string;
  detail: string;
  waitMs: number;
}

/** The decision for one request: the slots it would take, or its refusal. */
export type Plan = { admit: true; choices: SlotChoice[] } | { admit: false; refusal: Refusal };

const isLive = (state: LimiterState, limit: WindowLimit, index: number, now: number): boolean => {
  const time = state[slotTimeAttribute(limit, index)];
  return time !== undefined && time > now - limit.windowMs;
};

/** Requests a live slot already holds (a slot with no count attribute counts as full). */
const heldBy = (state: LimiterState, limit: WindowLimit, index: number): number =>
  limit.perSlot === 1 ? 1 : (state[slotCountAttribute(limit, index)] ?? limit.perSlot);

/**
 * Requests the limit would still admit at `now`, if nothing else arrives: a free slot takes
 * `perSlot`, a live one what it has room for. Exact for one-request slots; for the hour it is
 * at most 14 below the number of requests that left the window (never above).
 */
export const remainingOf = (state: LimiterState, limit: WindowLimit, now: number): number => {
  let remaining = 0;
  for (let index = 0; index < slotCount(limit); index += 1) {
    remaining += isLive(state, limit, index, now) ? Math.max(0, limit.perSlot - heldBy(state, limit, index)) : limit.perSlot;
  }
  return remaining;
};

/**
 * The slot a request takes in one limit, or undefined when every slot is live and full.
 * A live slot with room is joined first (the fullest, so slots fill one at a time and at most
 * one slot straddles the window's edge); otherwise a free one is claimed. With one request per
 * slot the free slot is chosen at random, so that concurrent requests seldom race for one slot;
 * with several it is the lowest free one, so that concurrent claimers meet and then join it.
 */
const chooseSlot = (
  state: LimiterState,
  limit: WindowLimit,
  now: number,
  random: () => number,
): SlotChoice | undefined => {
  const free: number[] = [];
  let fullest: { index: number; held: number } | undefined;
  for (let index = 0; index < slotCount(limit); index += 1) {
    if (!isLive(state, limit, index, now)) {
      free.push(index);
      continue;
    }
    const held = heldBy(state, limit, index);
    if (held < limit.perSlot && (!fullest || held > fullest.held)) fullest = { index, held };
  }
  if (fullest) return { limit, index: fullest.index, kind: 'join' };
  if (free.length === 0) return undefined;
  const index = limit.perSlot === 1 ? free[Math.floor(random() * free.length)]! : free[0]!;
  return { limit, index, kind: 'claim' };
};

/** When the oldest live slot of a full limit frees up (ms from now). */
const waitForSlot = (state: LimiterState, limit: WindowLimit, now: number): number => {
  let oldest = Number.POSITIVE_INFINITY;
  for (let index = 0; index < slotCount(limit); index += 1) {
    oldest = Math.min(oldest, state[slotTimeAttribute(limit, index)] ?? Number.NEGATIVE_INFINITY);
  }
  return oldest + limit.windowMs - now;
};

/**
 * Plans one request at `now` against `state`: a slot in every limit, or the refusal of the
 * limit (or poll interval) that keeps it out longest, with the exact time until it would be
 * admitted if nothing else arrived. Ties go to the earlier entry of `limits` (the larger
 * window), then to the window limits over the poll interval.
 */
export const planRequest = (
  state: LimiterState,
  limits: readonly WindowLimit[],
  now: number,
  list: boolean,
  random: () => number = Math.random,
): Plan => {
  const choices: SlotChoice[] = [];
  let refusal: Refusal | undefined;
  const consider = (code: string, detail: string, waitMs: number) => {
    if (!refusal || waitMs > refusal.waitMs) refusal = { code, detail, waitMs };
  };
  for (const limit of limits) {
    const choice = chooseSlot(state, limit, now, random);
    if (choice) choices.push(choice);
    else consider(limit.code, limit.detail, waitForSlot(state, limit, now));
  }
  const lastList = state[lastListAttribute];
  if (list && lastList !== undefined && lastList > now - pollInterval.ms) {
    consider(pollInterval.code, pollInterval.detail, lastList + pollInterval.ms - now);
  }
  return refusal ? { admit: false, refusal } : { admit: true, choices };
};
