/**
 * A customer's count journal (issue #19, counters; docs/area-a.md, "Keeping them exact"): the
 * stream consumer appends the bucket recounts of a batch here, one small item per customer and
 * batch, instead of rewriting a count page for every bucket it touched; readers lay the
 * journal over the pages (journal-records.ts overlayRecords); and once a customer's journal
 * holds `journalFoldAt` records (or journalFoldAppends appends), a fold writes them into the
 * pages, each page once, and the journal is emptied. Changes scattered over a large fleet then cost a share of a page each
 * instead of a page each.
 *
 * Why it is exact:
 * - A sequence is taken from the head (`ADD seq`) after a batch's entry writes ended and before
 *   its recount, so a record with a higher sequence was counted after every write of a batch
 *   with a lower one: of a field's records, the highest sequence holds its value.
 * - A fold first raises the head's `folded` to the last sequence handed out, then reads every
 *   record up to it, and writes each page with `through` = that sequence, conditional on the
 *   `through` it read: a record at or below a page's `through` is in the page or superseded.
 * - An appender that finds `folded` at or above its sequence after its append (a fold may have
 *   read the journal before the append landed) counts again under a new sequence. Its first
 *   append stays harmless: a page it was not folded into has not seen a newer value either.
 * - Records are counts, never increments, so a replayed batch or a crash between any two steps
 *   leaves values a later step or batch puts right; a fold that stopped half-way is finished by
 *   the next one (records stay until a fold that began after it completed has deleted them).
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, maxBatchGetKeys } from '../db/batch-get';
import { batchWriteAll } from '../db/batch-write';
import { isConditionFailure } from '../db/conditions';
import { TransientFailure } from '../errors/outage';
import { key, partition, sortKeyPrefix } from '../db/keys';
import { queryPages } from '../db/query-pages';
import { sleep } from '../time/sleep';
import { countBucket, type Recount } from './bucket-recount';
import type { CountSlot } from './entries';
import type { ListTable } from './fences';
import { decodeRecords, encodeRecords, pageIdOf, pendingValues, recordsByPage, removesAttribute, throughOf, type CountRecord, type SequencedRecord } from './journal-records';

/**
 * Records a customer's journal gathers before it is folded: about 20 KB of journal (2.5 read
 * units more for a reader at most, twice that while the previous fold's records wait for the
 * next fold to delete them), while a fold that rewrites every page of a million-SIM list's
 * day costs well under a write unit per change folded.
 */
export const defaultJournalFoldAt = 2_000;

/**
 * Appends a customer's journal gathers before it is folded, however few records each holds: a
 * consumer taking a trickle of changes (a fleet coming in through the feed a few SIMs a batch)
 * appends items of a handful of records, each about 60 bytes of key and type beside them, and
 * 2,000 records of those made a journal of some 800 items (11 read units for every list
 * request). 200 keeps a reader's journal (this fold's and the previous one's) near 400 items at
 * most; a fold of 200 small appends rewrites few pages.
 */
export const journalFoldAppends = 200;

/** Attempts of one append (each after a fold overtook the previous) before the batch fails. */
const maxAppendAttempts = 6;
/** Attempts of one page's fold write before the fold fails (a later fold finishes it). */
const maxPageAttempts = 8;
/** Page writes of a fold in flight at once. */
const parallelPageWrites = 8;

/** A bucket a batch touched: which prefixes its entries changed, and whether it was given a new entry. */
export interface TouchedBucket {
  slot: CountSlot;
  prefixes: Set<string>;
  put: boolean;
}

/** Buckets per count page and count partitions per list of the customer's group. */
export interface PageLayout {
  slots: number;
  shards: number;
}

const sequenceOf = (sortKey: unknown): number => Number(String(sortKey).slice(sortKeyPrefix.simListJournal.length));

/** Updates a customer's journal head (`#type`, `#seq`, `#pending` and `#folded` in the expression name those attributes) and returns all of its attributes after it. */
const updateHead = async (table: ListTable, customerId: string, expression: string, values: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const output = await table.db.send(
    new UpdateCommand({
      TableName: table.tableName,
      Key: key.simListJournalHead(customerId),
      UpdateExpression: expression,
      ExpressionAttributeNames: Object.fromEntries(['type', 'seq', 'pending', 'folded'].filter((name) => expression.includes(`#${name}`)).map((name) => [`#${name}`, name])),
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return output.Attributes!;
};

/** What a recount says of the fields a batch touched: every touched prefix's count, and the bounds of a time bucket given an entry. */
const recordsOf = (touched: TouchedBucket, recount: Recount): CountRecord[] => {
  const { ordering, bucket, day } = touched.slot;
  const records: CountRecord[] = [...touched.prefixes].map((field) => ({ ordering, day, bucket, field, value: recount.counts.get(field) ?? 0 }));
  if (ordering === 'time' && touched.put && recount.low !== undefined && recount.high !== undefined) {
    records.push({ ordering, day, bucket, field: 'lo', value: recount.low }, { ordering, day, bucket, field: 'hi', value: recount.high });
  }
  return records;
};

/**
 * Counts again the buckets of one customer's lists that a batch touched and appends what it
 * found to the customer's journal (see the module comment for the order of the steps); folds
 * the journal when it has gathered enough. Returns the recounts.
 */
export const appendRecounts = async (table: ListTable, customerId: string, touched: readonly TouchedBucket[], layout: PageLayout): Promise<Recount[]> => {
  const head = key.simListJournalHead(customerId);
  const recordCount = touched.reduce((sum, bucket) => sum + bucket.prefixes.size + (bucket.slot.ordering === 'time' && bucket.put ? 2 : 0), 0);
  for (let attempt = 1; ; attempt += 1) {
    const taken = await updateHead(table, customerId, 'SET #type = :type ADD #seq :one, #pending :records', {
      ':type': 'sim_list_journal_head',
      ':one': 1,
      ':records': recordCount,
    });
    const sequence = Number(taken.seq);
    const recounts = await Promise.all(touched.map((bucket) => countBucket(table, bucket.slot)));
    const records = touched.flatMap((bucket, index) => recordsOf(bucket, recounts[index]!));
    await table.db.send(
      new PutCommand({
        TableName: table.tableName,
        Item: { ...key.simListJournalEntry(customerId, sequence), type: 'sim_list_journal', ...encodeRecords(records) },
      }),
    );
    const now = await table.db.send(new GetCommand({ TableName: table.tableName, Key: head, ConsistentRead: true, ProjectionExpression: 'folded' }));
    if (Number(now.Item?.folded ?? 0) < sequence) {
      const appends = sequence - Number(taken.folded ?? 0);
      if (Number(taken.pending) >= (table.journalFoldAt ?? defaultJournalFoldAt) || appends >= (table.journalFoldAppends ?? journalFoldAppends)) await foldJournal(table, customerId, layout);
      return recounts;
    }
    if (attempt >= maxAppendAttempts) throw new TransientFailure(`the count journal of ${customerId} was folded over ${attempt} appends in a row`);
  }
};

/** The journal's appends with their records, up to sequence `upTo` when given; strongly consistent when asked. */
const readAppends = async (table: ListTable, customerId: string, options: { upTo?: number; consistent?: boolean }): Promise<{ sequence: number; records: SequencedRecord[] }[]> => {
  const appends: { sequence: number; records: SequencedRecord[] }[] = [];
  const upper = options.upTo === undefined ? `${sortKeyPrefix.simListJournal}~` : key.simListJournalEntry(customerId, options.upTo).SK;
  for await (const items of queryPages(table.db, {
    TableName: table.tableName,
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': partition.simListJournal(customerId), ':from': sortKeyPrefix.simListJournal, ':to': upper },
    ...(options.consistent ? { ConsistentRead: true } : {}),
  })) {
    for (const item of items) {
      const sequence = sequenceOf(item.SK);
      appends.push({ sequence, records: decodeRecords(item).map((record) => ({ ...record, sequence })) });
    }
  }
  return appends;
};

/** Every record of a customer's journal (one Query, eventually consistent: what a reader lays over the pages). */
export const readJournal = async (table: ListTable, customerId: string): Promise<SequencedRecord[]> =>
  (await readAppends(table, customerId, {})).flatMap((append) => append.records);

/**
 * Folds a customer's journal into its count pages: every record up to the last sequence handed
 * out is written to its page, each page once, with `through`; then the journal items that an
 * earlier, completed fold had folded are deleted (this fold's stay until the next one, so that
 * a reader whose page read lags a moment behind still finds them). Safe to run at any time, by
 * any number of consumers at once, and after a fold that stopped half-way.
 */
export const foldJournal = async (table: ListTable, customerId: string, layout: PageLayout): Promise<{ pagesWritten: number; appendsDeleted: number }> => {
  const head = key.simListJournalHead(customerId);
  const blocked = await updateHead(table, customerId, 'SET #folded = if_not_exists(#seq, :zero), #pending = :zero', { ':zero': 0 });
  const through = Number(blocked.folded);
  const previouslyDone = Number(blocked.done ?? 0);
  const appends = await readAppends(table, customerId, { upTo: through, consistent: true });
  const records = appends.flatMap((append) => append.records);

  const byPage = recordsByPage(customerId, records, layout);
  const pages = new Map<string, Record<string, unknown>>();
  const keys = [...byPage.values()].map((page) => page.key);
  for (let start = 0; start < keys.length; start += maxBatchGetKeys) {
    for (const page of await batchGetItems(table.db, table.tableName, keys.slice(start, start + maxBatchGetKeys), { consistentRead: true })) {
      pages.set(pageIdOf(page as { PK: unknown; SK: unknown }), page);
    }
  }
  let written = 0;
  const queue = [...byPage.keys()];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      if (await foldPage(table, customerId, byPage.get(id)!.records, byPage.get(id)!.key, pages.get(id), through, layout)) written += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelPageWrites, queue.length) }, worker));

  try {
    await table.db.send(
      new UpdateCommand({
        TableName: table.tableName,
        Key: head,
        UpdateExpression: 'SET #done = :through',
        ConditionExpression: 'attribute_not_exists(#done) OR #done < :through',
        ExpressionAttributeNames: { '#done': 'done' },
        ExpressionAttributeValues: { ':through': through },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  const deleted = appends.filter((append) => append.sequence <= previouslyDone);
  await batchWriteAll(table.db, table.tableName, deleted.map((append) => ({ delete: key.simListJournalEntry(customerId, append.sequence) })));
  return { pagesWritten: written, appendsDeleted: deleted.length };
};

/**
 * Writes one page's pending values (journal-records.ts pendingValues) of its own `records` with `through`, on the
 * condition that its `through` is still the one read; when another fold wrote it meanwhile,
 * reads it again and writes what is still pending. Returns whether it wrote.
 */
const foldPage = async (
  table: ListTable,
  customerId: string,
  records: readonly SequencedRecord[],
  pageKey: { PK: string; SK: string },
  read: Record<string, unknown> | undefined,
  through: number,
  layout: PageLayout,
): Promise<boolean> => {
  const id = pageIdOf(pageKey);
  let page = read;
  for (let attempt = 1; ; attempt += 1) {
    const values = pendingValues(customerId, records, new Map(page ? [[id, page]] : []), layout).get(id)?.values;
    if (!values) return false;
    const names: Record<string, string> = { '#type': 'type', '#through': 'through' };
    const attributeValues: Record<string, unknown> = { ':type': 'sim_list_counts', ':through': through };
    const set = ['#type = :type', '#through = :through'];
    const remove: string[] = [];
    let index = 0;
    for (const [attribute, { value, field }] of values) {
      names[`#a${index}`] = attribute;
      if (removesAttribute(value, field)) remove.push(`#a${index}`);
      else {
        attributeValues[`:a${index}`] = value;
        set.push(`#a${index} = :a${index}`);
      }
      index += 1;
    }
    const current = throughOf(page);
    if (current > 0) attributeValues[':read'] = current;
    try {
      await table.db.send(
        new UpdateCommand({
          TableName: table.tableName,
          Key: pageKey,
          UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
          ConditionExpression: current > 0 ? '#through = :read' : 'attribute_not_exists(#through)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: attributeValues,
        }),
      );
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (attempt >= maxPageAttempts) throw new TransientFailure(`a count page of ${customerId} kept changing over ${attempt} attempts`, { cause: error });
      await sleep(Math.min(20 * 2 ** attempt, 1000) * Math.random());
      page = (await table.db.send(new GetCommand({ TableName: table.tableName, Key: pageKey, ConsistentRead: true }))).Item;
      if (throughOf(page) >= through) return false;
    }
  }
};
