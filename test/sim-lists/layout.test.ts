import { describe, expect, it } from 'vitest';
import { entriesOf } from '../../shared/sim-lists/entries';
import { fenceItems, fencesFromItems } from '../../shared/sim-lists/fences';
import { bucketsOfPage, countAttribute, highAttribute, legacyPageSlots, lowAttribute, pageOf, pageSlots, pageSlotsOf, prefixOf, prefixesFor } from '../../shared/sim-lists/layout';

/**
 * The count pages' size (issue #19, point 3: about 1 write unit amortised for counters): a
 * page of an index built now stays under 1 KB and its pages are spread over 8 partitions (no
 * hot key: point 3); an index built before (its META names no `page_slots`) is still read and
 * kept in pages of 16 buckets, all in one partition.
 */

/** DynamoDB's size of an item of strings and numbers: names, UTF-8 strings, numbers at about a byte per two digits plus one. */
const itemBytes = (item: Record<string, string | number>): number =>
  Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + (typeof value === 'number' ? Math.ceil(String(value).replace(/^0+/, '').length / 2) + 1 : Buffer.byteLength(value)),
    0,
  );

describe('count pages', () => {
  it('stay under one write unit with every prefix counted in every slot of a page of order of update', () => {
    const page: Record<string, string | number> = { PK: 'SIMLTC#a-customer-id-of-forty-characters-xx#7', SK: '20261125#000123', type: 'sim_list_counts', ver: 123_456, through: 999_999_999_999 };
    for (let slot = 0; slot < pageSlots; slot += 1) {
      for (const prefix of prefixesFor({ direct: false })) page[countAttribute(slot, prefix)] = 500;
      page[lowAttribute(slot)] = 1_795_644_150_791;
      page[highAttribute(slot)] = 1_795_644_150_791;
    }
    expect(prefixesFor({ direct: false })).toHaveLength(16);
    expect(itemBytes(page)).toBeLessThan(1_024);
  });

  it('place a bucket by the page size of its group: 6 buckets a page for an index built now, 16 for one built before', () => {
    expect(pageSlots).toBe(6);
    expect(pageSlotsOf({ page_slots: 6 })).toBe(6);
    expect(pageSlotsOf({})).toBe(legacyPageSlots);
    expect(pageSlotsOf(undefined)).toBe(16);
    expect(pageOf(11, 6)).toEqual({ page: 1, slot: 5 });
    expect(pageOf(11, 16)).toEqual({ page: 0, slot: 11 });
    expect(bucketsOfPage(1, { c5Da: 4, c5Is: 2, c4Da: 0 }, 6)).toEqual([{ bucket: 11, counts: new Map([['Da', 4], ['Is', 2]]) }]);
    expect(bucketsOfPage(0, { c11Da: 4, c11Is: 2 }, 16)).toEqual([{ bucket: 11, counts: new Map([['Da', 4], ['Is', 2]]) }]);
  });

  it('follow the META: a new index says 6 buckets a page over 8 partitions, an index whose META names neither is read as 16 in one', () => {
    const fences = Array.from({ length: 20 }, (_, index) => index * 500);
    const built = fencesFromItems(fenceItems('g', fences, { maxId: 9_999, state: 'ready', buildStartedMs: 0 }) as unknown as Record<string, unknown>[])!;
    expect(built.meta).toMatchObject({ page_slots: 6, page_shards: 8 });
    expect(built).toMatchObject({ slots: 6, shards: 8 });
    const earlier = fencesFromItems(
      (fenceItems('g', fences, { maxId: 9_999, state: 'ready', buildStartedMs: 0 }) as unknown as Record<string, unknown>[]).map(({ page_slots: _slots, page_shards: _shards, ...item }) => item),
    )!;
    expect(earlier).toMatchObject({ slots: 16, shards: 1 });

    const sim = { id: 5_600, status: 'active', customer_id: 'g', customer_path: ['g'], updated_at_ms: 1_795_644_150_791, list_pos: { g: '20261125#5600' } };
    const pagesOf = (layout: { fences: readonly number[]; slots: number; shards: number }) => entriesOf(sim, layout).map((entry) => ({ page: entry.count.page, slot: entry.count.slot }));
    // Id bucket 11 (fence 5,500), time bucket 11 (position 5,600): page 1, in count partition 1 of 8.
    expect(pagesOf(built)).toEqual([
      { page: { PK: 'SIMLIC#g#1', SK: '000001' }, slot: 5 },
      { page: { PK: 'SIMLTC#g#1', SK: '20261125#000001' }, slot: 5 },
    ]);
    expect(pagesOf(earlier)).toEqual([
      { page: { PK: 'SIMLIC#g', SK: '000000' }, slot: 11 },
      { page: { PK: 'SIMLTC#g', SK: '20261125#000000' }, slot: 11 },
    ]);
  });
});

describe('names from outside in the list index', () => {
  it('are data: a status named like a property of every object is an unknown status, and a customer so named has only the positions it was given', () => {
    expect(['constructor', 'toString', '__proto__', 'hasOwnProperty'].map((status) => prefixOf('c', 'c', status))).toEqual(['Dx', 'Dx', 'Dx', 'Dx']);
    const sim = { id: 7, status: 'active', customer_id: 'constructor', customer_path: ['toString', 'constructor'], updated_at_ms: Date.parse('2026-11-20T10:00:00Z'), list_pos: { constructor: '20261120#3' } };
    expect(entriesOf(sim, { fences: [0], slots: pageSlots, shards: 8 }).map((entry) => [entry.count.customerId, entry.count.ordering, entry.prefix])).toEqual([
      ['toString', 'id', 'Ia'],
      ['constructor', 'id', 'Da'],
      ['constructor', 'time', 'Da'],
    ]);
  });
});
