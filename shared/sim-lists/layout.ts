/**
 * The shape of the SIM list index (issue #19; docs/area-a.md, "Lists at fleet scale"): the
 * sizes and the names every part of it agrees on. The keys themselves are in shared/db/keys.ts.
 *
 * Every customer has two ordered lists of the SIMs in its scope (its own and its
 * descendants'): one in id order, one in order of update. A list is cut into buckets, each its
 * own partition of small entry items; a count page holds the number of entries of each bucket
 * per prefix, so that any offset is found from the counts without reading entries. A prefix is
 * `D` (owned by the list's customer itself) or `I` (owned by a descendant) followed by the
 * status letter, so that every filter of A1 reads a few contiguous key ranges.
 */

/** Most SIMs of a customer group in one id bucket when the bucket is cut (a sweep writes each at most twice a second). */
export const idBucketSize = 500;
/** Time positions per bucket of the order of update (each bucket partition takes at most this many puts, ever). */
export const timeBucketSize = 500;
/**
 * Buckets per count page of an index built now: 6 keeps a page under 1 KB (one write unit)
 * even with all 16 prefixes counted in every slot (a slot is about 135 bytes then), so that a
 * batch of changes pays about 1 write unit per page it touches. Reads cost the same whatever
 * the page size (a Query's units follow the bytes it returns). Read from a group's META with
 * pageSlotsOf: an index built before pages were halved keeps its 16.
 */
export const pageSlots = 6;
/** Buckets per count page of an index whose META names none (built before `page_slots` existed). */
export const legacyPageSlots = 16;
/**
 * Count partitions per list of an index built now: page `p` lives in partition `p mod 8`
 * (shard 0 has no suffix). A batch of changes writes each page it touches once, and a sweep of
 * SIMs whose last updates are scattered touches most pages of a day: spread over 8 keys, a
 * burst of 10,000 changes a second stays under 1,000 writes a second on any of them. A reader
 * queries the 8 in parallel (one round trip). An index built before (no `page_shards` in its
 * META) keeps every page in shard 0.
 */
export const pageShards = 8;
/** Fences per sealed fence page. */
export const fencesPerPage = 256;

/** The status letters of the prefixes (SPEC.md, "SIM status"). */
export const statusLetters = {
  active: 'a',
  inactive: 'i',
  suspended: 's',
  cancelled: 'c',
  stock: 'k',
  dispatched: 'd',
  trial: 't',
} as const;

/** A SIM status of the specification. */
export type SimStatus = keyof typeof statusLetters;

/** Every status, in the specification's order. */
export const simStatusList = Object.keys(statusLetters) as SimStatus[];

/** A list prefix: ownership (`D` direct, `I` indirect) and status letter, e.g. `Ia`. */
export type ListPrefix = string;

/** Whether a string is a status the list knows (a SIM item with another status is listed under `x`). */
const letterOf = (status: string): string => (Object.hasOwn(statusLetters, status) ? statusLetters[status as SimStatus] : 'x');

/** The prefix of a SIM owned by `ownerId` in the list of `listCustomerId`. */
export const prefixOf = (listCustomerId: string, ownerId: string, status: string): ListPrefix =>
  `${listCustomerId === ownerId ? 'D' : 'I'}${letterOf(status)}`;

/**
 * The prefixes an A1 filter reads: every SIM of the list (`direct` false) or only those the
 * list's customer owns itself (the `customer` filter), of one status or of all.
 */
export const prefixesFor = (filter: { status?: string; direct: boolean }): ListPrefix[] => {
  const owners = filter.direct ? ['D'] : ['D', 'I'];
  const letters = filter.status === undefined ? [...Object.values(statusLetters), 'x'] : [letterOf(filter.status)];
  return owners.flatMap((owner) => letters.map((letter) => `${owner}${letter}`));
};

/** The UTC day of an instant as `yyyymmdd`: the day of a time position. */
export const dayOf = (epochMs: number): string => new Date(epochMs).toISOString().slice(0, 10).replaceAll('-', '');

/** A time position `<yyyymmdd>#<sequence>` read back; undefined when malformed. */
export const parsePosition = (position: unknown): { day: string; sequence: number } | undefined => {
  const match = typeof position === 'string' ? /^(\d{8})#(\d+)$/.exec(position) : null;
  return match ? { day: match[1]!, sequence: Number(match[2]) } : undefined;
};

/** The time position written on a SIM item. */
export const formatPosition = (day: string, sequence: number): string => `${day}#${sequence}`;

/** The bucket of a time position. */
export const timeBucketOf = (sequence: number): number => Math.floor(sequence / timeBucketSize);

/** The buckets per count page of a group's index, from its META (`page_slots`; absent: legacyPageSlots). */
export const pageSlotsOf = (meta: { page_slots?: number } | undefined): number => meta?.page_slots ?? legacyPageSlots;
/** The count partitions per list of a group's index, from its META (`page_shards`; absent: 1). */
export const pageShardsOf = (meta: { page_shards?: number } | undefined): number => meta?.page_shards ?? 1;
/** The count partition of a page, for an index of `shards` partitions per list. */
export const shardOfPage = (page: number, shards: number): number => page % shards;

/** The count page of a bucket, and the bucket's index within it, for pages of `slots` buckets. */
export const pageOf = (bucket: number, slots: number): { page: number; slot: number } => ({
  page: Math.floor(bucket / slots),
  slot: bucket % slots,
});

/** The count attribute of a bucket slot and prefix on a count page (`c<slot><prefix>`). */
export const countAttribute = (slot: number, prefix: ListPrefix): string => `c${slot}${prefix}`;
/** The smallest and largest update time (epoch ms) of a bucket slot on a time count page. */
export const lowAttribute = (slot: number): string => `lo${slot}`;
export const highAttribute = (slot: number): string => `hi${slot}`;

/** The counts, and time bounds, of one bucket as read from a count page. */
export interface BucketCounts {
  bucket: number;
  counts: Map<ListPrefix, number>;
  /** Smallest and largest update time of its entries (time buckets only). */
  low?: number;
  high?: number;
}

/**
 * The buckets of a count page item (`c<slot><prefix>`, `lo<slot>`, `hi<slot>`) of pages of
 * `slots` buckets, with their bucket numbers (page * slots + slot). Attributes with a zero
 * count are left out.
 */
export const bucketsOfPage = (page: number, item: Record<string, unknown>, slots: number): BucketCounts[] => {
  const bySlot = new Map<number, BucketCounts>();
  const slotEntry = (slot: number) => {
    let entry = bySlot.get(slot);
    if (!entry) bySlot.set(slot, (entry = { bucket: page * slots + slot, counts: new Map() }));
    return entry;
  };
  for (const [name, value] of Object.entries(item)) {
    const count = /^c(\d+)([DI][a-z])$/.exec(name);
    if (count && typeof value === 'number' && value > 0) slotEntry(Number(count[1])).counts.set(count[2]!, value);
    const bound = /^(lo|hi)(\d+)$/.exec(name);
    if (bound && typeof value === 'number') slotEntry(Number(bound[2]))[bound[1] === 'lo' ? 'low' : 'high'] = value;
  }
  return [...bySlot.values()].filter((entry) => entry.counts.size > 0).sort((left, right) => left.bucket - right.bucket);
};

/** How many entries of a bucket carry one of `prefixes`. */
export const countOf = (bucket: BucketCounts, prefixes: readonly ListPrefix[]): number =>
  prefixes.reduce((sum, prefix) => sum + (bucket.counts.get(prefix) ?? 0), 0);
