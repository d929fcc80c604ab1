import type { SimItem } from '../db/items';
import { key } from '../db/keys';
import { entriesOf, updatedAtOfTimeEntry } from './entries';
import { fenceItems } from './fences';
import { countAttribute, dayOf, formatPosition, highAttribute, lowAttribute, pageShards, pageSlots } from './layout';

/**
 * Building the list index in bulk, for a table being filled while nothing else writes it (the
 * seed of a new table, the benchmark's fleets): counts are computed here, not by the stream
 * consumer, from the same entries (./entries.ts) the consumer writes.
 */

/**
 * Hands out time positions in bulk: `assign` gives a SIM its position in the list of each
 * customer on its path, numbering each customer's positions per UTC day from 0, and stamps it
 * as listed at `nowMs`; `next` hands out one customer's next position of a day (the seed loader
 * plans positions without the SIM items). Call them in order of update (ties by id);
 * `sequenceItems` are then the counters that hand out the next positions (./positions.ts).
 */
export const positionAssigner = (nowMs: number) => {
  const counters = new Map<string, number>();
  const next = (customerId: string, day: string): number => {
    const counter = `${customerId}\u0000${day}`;
    const sequence = counters.get(counter) ?? 0;
    counters.set(counter, sequence + 1);
    return sequence;
  };
  return {
    next,
    assign: (sim: SimItem): void => {
      const day = dayOf(sim.updated_at_ms);
      // Customer ids come from outside: entries made by Object.fromEntries, never by assignment.
      sim.list_pos = Object.fromEntries(sim.customer_path.map((customerId) => [customerId, formatPosition(day, next(customerId, day))]));
      sim.listed_at_ms = nowMs;
    },
    sequenceItems: (): Record<string, unknown>[] =>
      [...counters].map(([counter, sequence]) => {
        const [customerId, day] = counter.split('\u0000') as [string, string];
        return { ...key.simListSequence(customerId, day), type: 'sim_list_sequence', next: sequence };
      }),
  };
};

/**
 * The list entries of SIMs written in bulk, with every count page kept up to date as they are
 * added: `entriesOf(sim)` answers a SIM's entries (positioned already; its group's fences
 * from `fencesByGroup`), `countItems()` every count page with exact counts and time bounds, in
 * pages of layout.ts `pageSlots` over `pageShards` partitions (a new index: readyGroupItems' META
 * says so). Holds the count pages only (a few per thousand SIMs), never the entries.
 */
export class BulkEntryCounter {
  private readonly pages = new Map<string, Record<string, unknown>>();

  constructor(private readonly fencesByGroup: ReadonlyMap<string, readonly number[]>) {}

  /** The entry items of `sim` (key only), counted. */
  entriesOf(sim: SimItem): Record<string, unknown>[] {
    const fences = this.fencesByGroup.get(sim.customer_path[0]!);
    if (!fences) throw new Error(`no fences for the customer group of SIM ${sim.id}`);
    return entriesOf(sim, { fences, slots: pageSlots, shards: pageShards }).map((entry) => {
      const pageKey = `${entry.count.page.PK}\u0000${entry.count.page.SK}`;
      let page = this.pages.get(pageKey);
      if (!page) this.pages.set(pageKey, (page = { ...entry.count.page, type: 'sim_list_counts', ver: 0 }));
      const counted = countAttribute(entry.count.slot, entry.prefix);
      page[counted] = ((page[counted] as number | undefined) ?? 0) + 1;
      if (entry.count.ordering === 'time') {
        const updatedAt = updatedAtOfTimeEntry(entry.SK);
        const low = lowAttribute(entry.count.slot);
        const high = highAttribute(entry.count.slot);
        page[low] = Math.min((page[low] as number | undefined) ?? updatedAt, updatedAt);
        page[high] = Math.max((page[high] as number | undefined) ?? updatedAt, updatedAt);
      }
      return { PK: entry.PK, SK: entry.SK };
    });
  }

  /** Every count page of the entries made so far. */
  countItems(): Record<string, unknown>[] {
    return [...this.pages.values()];
  }
}

/**
 * Every entry of `sims` (positioned already), then every count page (BulkEntryCounter). A
 * generator over any iterable, so that a million SIMs are written without holding their six
 * million entries.
 */
export function* bulkEntryAndCountItems(sims: Iterable<SimItem>, fencesByGroup: ReadonlyMap<string, readonly number[]>): Generator<Record<string, unknown>> {
  const counter = new BulkEntryCounter(fencesByGroup);
  for (const sim of sims) yield* counter.entriesOf(sim);
  yield* counter.countItems();
}

/** A group's fence pages and its META, `ready`, for fences cut in bulk. */
export const readyGroupItems = (groupId: string, fences: readonly number[], maxId: number): Record<string, unknown>[] =>
  fenceItems(groupId, fences, { maxId, state: 'ready', buildStartedMs: 0 }) as unknown as Record<string, unknown>[];
