/**
 * The records of a customer's count journal (./journal.ts), pure: how they are written in a
 * journal item and how they lay over the count pages they will be folded into.
 *
 * A record is one absolute value of one bucket's count page attribute, as a recount found it:
 * the count of one prefix (0: the bucket has none), or a time bucket's `lo` or `hi` bound. An
 * item holds the records of one consumer batch under one sequence; the record of a (bucket,
 * field) with the highest sequence is its value, unless the bucket's page was folded through
 * that sequence or later (its `through`).
 */
import { countAttribute, highAttribute, lowAttribute, pageOf, shardOfPage } from './layout';
import { key } from '../db/keys';

/** One recounted value. */
export interface CountRecord {
  ordering: 'id' | 'time';
  /** The day of a time bucket (yyyymmdd). */
  day?: string;
  bucket: number;
  /** A list prefix (`Da`), or `lo` / `hi`. */
  field: string;
  value: number;
}

/** A record read back with the sequence of the append that holds it. */
export interface SequencedRecord extends CountRecord {
  sequence: number;
}

/** The attributes of a journal item that hold its records: `i` the id order's, `t` the order of update's. */
export interface EncodedRecords {
  i?: string;
  t?: string;
}

const token = (record: CountRecord): string => `${record.bucket.toString(36)}.${record.field}=${record.value.toString(36)}`;

/**
 * The records in a journal item's compact form (about 10 bytes a count): `i` is
 * `<bucket>.<field>=<value>,...` and `t` is `<day>:<bucket>.<field>=<value>,...;<day>:...`,
 * numbers in base 36.
 */
export const encodeRecords = (records: readonly CountRecord[]): EncodedRecords => {
  const ids = records.filter((record) => record.ordering === 'id').map(token);
  const days = new Map<string, string[]>();
  for (const record of records.filter((record) => record.ordering === 'time')) {
    days.set(record.day!, [...(days.get(record.day!) ?? []), token(record)]);
  }
  const times = [...days].map(([day, tokens]) => `${day}:${tokens.join(',')}`);
  return { ...(ids.length > 0 ? { i: ids.join(',') } : {}), ...(times.length > 0 ? { t: times.join(';') } : {}) };
};

const tokenPattern = /^([0-9a-z]+)\.([DI][a-z]|lo|hi)=([0-9a-z]+)$/;

const decodeTokens = (text: string, base: Omit<CountRecord, 'bucket' | 'field' | 'value'>): CountRecord[] =>
  text.split(',').flatMap((part) => {
    const match = tokenPattern.exec(part);
    return match ? [{ ...base, bucket: parseInt(match[1]!, 36), field: match[2]!, value: parseInt(match[3]!, 36) }] : [];
  });

/** The records of a journal item (encodeRecords read back); a malformed part is skipped. */
export const decodeRecords = (item: EncodedRecords): CountRecord[] => [
  ...(typeof item.i === 'string' && item.i !== '' ? decodeTokens(item.i, { ordering: 'id' }) : []),
  ...(typeof item.t === 'string' && item.t !== ''
    ? item.t.split(';').flatMap((group) => {
        const [day, tokens] = group.split(':');
        return day && /^\d{8}$/.test(day) && tokens ? decodeTokens(tokens, { ordering: 'time', day }) : [];
      })
    : []),
];

/** A page's count attribute for a record's field on the bucket's slot. */
export const attributeOf = (field: string, slot: number): string =>
  field === 'lo' ? lowAttribute(slot) : field === 'hi' ? highAttribute(slot) : countAttribute(slot, field);

/** The key of the count page a record is folded into, for a customer's list of `slots` buckets a page over `shards` partitions. */
export const pageKeyOf = (customerId: string, record: CountRecord, slots: number, shards: number): { PK: string; SK: string } => {
  const { page } = pageOf(record.bucket, slots);
  const shard = shardOfPage(page, shards);
  return record.ordering === 'id' ? key.simListIdCounts(customerId, page, shard) : key.simListTimeCounts(customerId, record.day!, page, shard);
};

/** How far a count page was folded (its `through`; 0 for a page a bulk build or an earlier version wrote). */
export const throughOf = (page: Record<string, unknown> | undefined): number => (typeof page?.through === 'number' ? page.through : 0);

/** The id of a page item, or of a page key, in the maps below. */
export const pageIdOf = (page: { PK: unknown; SK: unknown }): string => `${String(page.PK)}\u0000${String(page.SK)}`;

/** What a page will hold once its records are folded in: per attribute, the newest record's value. */
export interface PendingPage {
  key: { PK: string; SK: string };
  values: Map<string, { value: number; sequence: number; field: string }>;
}

/** Whether a record's value removes its attribute from the page (a count of 0; a bound of 0 is still a bound). */
export const removesAttribute = (value: number, field: string): boolean => value === 0 && field !== 'lo' && field !== 'hi';

/** The records grouped by the count page they are folded into, by page id. */
export const recordsByPage = (
  customerId: string,
  records: readonly SequencedRecord[],
  layout: { slots: number; shards: number },
): Map<string, { key: { PK: string; SK: string }; records: SequencedRecord[] }> => {
  const byPage = new Map<string, { key: { PK: string; SK: string }; records: SequencedRecord[] }>();
  for (const record of records) {
    const pageKey = pageKeyOf(customerId, record, layout.slots, layout.shards);
    const id = pageIdOf(pageKey);
    const page = byPage.get(id) ?? { key: pageKey, records: [] };
    page.records.push(record);
    byPage.set(id, page);
  }
  return byPage;
};

/**
 * The newest record of each page attribute that its page does not hold yet (sequence above
 * the page's `through`), by page id and attribute; a count of 0 is kept (it removes the
 * attribute).
 */
export const pendingValues = (
  customerId: string,
  records: readonly SequencedRecord[],
  pages: ReadonlyMap<string, Record<string, unknown>>,
  layout: { slots: number; shards: number },
): Map<string, PendingPage> => {
  const byPage = new Map<string, PendingPage>();
  for (const [id, group] of recordsByPage(customerId, records, layout)) {
    const through = throughOf(pages.get(id));
    const page: PendingPage = { key: group.key, values: new Map() };
    for (const record of group.records) {
      if (record.sequence <= through) continue;
      const attribute = attributeOf(record.field, pageOf(record.bucket, layout.slots).slot);
      const known = page.values.get(attribute);
      if (!known || known.sequence < record.sequence) page.values.set(attribute, { value: record.value, sequence: record.sequence, field: record.field });
    }
    if (page.values.size > 0) byPage.set(id, page);
  }
  return byPage;
};

/**
 * The count pages of a list as they will be once the journal's records are folded in (what a
 * reader counts with): each page item copied with its pending values set, a zero count
 * removed, and a page that has only records added.
 */
export const overlayRecords = (
  customerId: string,
  pages: readonly Record<string, unknown>[],
  records: readonly SequencedRecord[],
  layout: { slots: number; shards: number },
): Record<string, unknown>[] => {
  const byId = new Map(pages.map((page) => [pageIdOf(page as { PK: unknown; SK: unknown }), page]));
  const pending = pendingValues(customerId, records, byId, layout);
  const result = new Map(byId);
  for (const [id, { key: pageKey, values }] of pending) {
    const page: Record<string, unknown> = { ...(byId.get(id) ?? pageKey) };
    for (const [attribute, { value, field }] of values) {
      if (removesAttribute(value, field)) delete page[attribute];
      else page[attribute] = value;
    }
    result.set(id, page);
  }
  return [...result.values()];
};
