import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { key } from '../../shared/db/keys';
import { batchWriteAll } from '../../shared/db/batch-write';
import type { CountSlot } from '../../shared/sim-lists/entries';
import { appendRecounts, foldJournal, readJournal } from '../../shared/sim-lists/journal';
import { decodeRecords, encodeRecords, overlayRecords, type CountRecord } from '../../shared/sim-lists/journal-records';
import { createTestTable, testDynamoClient } from '../support/resources';

/**
 * The count journal (issue #19, counters; shared/sim-lists/journal.ts): records are compact,
 * the newest record of a field above its page's `through` is its value, a fold writes them into
 * the pages and empties the journal over two folds, a fold that stopped half-way or an append
 * that a fold overtook never leaves a count wrong.
 */

const layout = { slots: 6, shards: 8 };

describe('journal records', () => {
  it('are written in about ten bytes a count and read back as written', () => {
    const records: CountRecord[] = [
      { ordering: 'id', bucket: 0, field: 'Da', value: 3 },
      { ordering: 'id', bucket: 1_999, field: 'Is', value: 0 },
      { ordering: 'time', day: '20261125', bucket: 7, field: 'Ia', value: 500 },
      { ordering: 'time', day: '20261125', bucket: 7, field: 'lo', value: 1_795_644_150_791 },
      { ordering: 'time', day: '20261126', bucket: 0, field: 'hi', value: 1_795_730_550_791 },
    ];
    const encoded = encodeRecords(records);
    expect(encoded).toEqual({ i: '0.Da=3,1jj.Is=0', t: '20261125:7.Ia=dw,7.lo=mwwo5y4n;20261126:0.hi=mwy3lssn' });
    expect(decodeRecords(encoded)).toEqual(records);
    expect(decodeRecords({ i: '0.Da=3,garbage,1.Xx=2', t: 'yesterday:1.Da=1' })).toEqual([{ ordering: 'id', bucket: 0, field: 'Da', value: 3 }]);
  });

  it('lie over the pages: the newest record of a field above its page’s through wins, a zero count removes it, a page of records alone is made', () => {
    const pages = [
      { PK: 'SIMLIC#c', SK: '000000', c0Da: 5, c1Ia: 2, through: 4 },
      { PK: 'SIMLIC#c#1', SK: '000001', c0Da: 7 },
    ];
    const overlaid = overlayRecords(
      'c',
      pages,
      [
        { ordering: 'id', bucket: 0, field: 'Da', value: 9, sequence: 4 }, // folded already
        { ordering: 'id', bucket: 1, field: 'Ia', value: 0, sequence: 6 },
        { ordering: 'id', bucket: 1, field: 'Ia', value: 1, sequence: 5 }, // older than the 0
        { ordering: 'id', bucket: 6, field: 'Da', value: 8, sequence: 5 },
        { ordering: 'id', bucket: 12, field: 'Ds', value: 1, sequence: 1 },
      ],
      layout,
    );
    expect(overlaid).toEqual([
      { PK: 'SIMLIC#c', SK: '000000', c0Da: 5, through: 4 },
      { PK: 'SIMLIC#c#1', SK: '000001', c0Da: 8 },
      { PK: 'SIMLIC#c#2', SK: '000002', c0Ds: 1 },
    ]);
    expect(pages[0]).toEqual({ PK: 'SIMLIC#c', SK: '000000', c0Da: 5, c1Ia: 2, through: 4 });
  });
});

describe('the count journal on DynamoDB Local', () => {
  const dynamo = testDynamoClient();
  const db = DynamoDBDocumentClient.from(dynamo);
  let table: { db: DynamoDBDocumentClient; tableName: string };
  const customer = 'jc';
  const slot: CountSlot = { page: key.simListIdCounts(customer, 0, 0), bucketPartition: `SIMLI#${customer}#0`, slot: 0, ordering: 'id', customerId: customer, bucket: 0 };
  const entry = (id: number) => key.simListIdEntry(customer, 0, 'Da', id);
  const pageNow = async () => (await db.send(new GetCommand({ TableName: table.tableName, Key: slot.page, ConsistentRead: true }))).Item;
  const countRead = async () => overlayRecords(customer, [(await pageNow()) ?? slot.page], await readJournal(table, customer), layout)[0]!.c0Da;
  const recount = () => appendRecounts(table, customer, [{ slot, prefixes: new Set(['Da']), put: false }], layout);

  beforeAll(async () => {
    table = { db, tableName: await createTestTable() };
    // A bucket of five entries and its page as a bulk build writes it (no through).
    await batchWriteAll(db, table.tableName, [1, 2, 3, 4, 5].map((id) => ({ put: entry(id) })));
    await db.send(new PutCommand({ TableName: table.tableName, Item: { ...slot.page, type: 'sim_list_counts', c0Da: 5 } }));
  });

  afterAll(() => dynamo.destroy());

  it('keeps the count right through appends, a fold that stopped half-way, an overtaken append, a late record and two folds', async () => {
    await batchWriteAll(db, table.tableName, [{ delete: entry(5) }, { delete: entry(4) }]);
    await recount();
    expect(await countRead()).toBe(3);

    // A fold that blocked the journal (folded = 1) and stopped before writing any page.
    await db.send(new UpdateCommand({ TableName: table.tableName, Key: key.simListJournalHead(customer), UpdateExpression: 'SET folded = seq' }));
    expect(await countRead()).toBe(3);

    // An append that a fold overtakes (folded set ahead of the next sequences) counts again under a new sequence.
    await db.send(new UpdateCommand({ TableName: table.tableName, Key: key.simListJournalHead(customer), UpdateExpression: 'SET folded = :ahead', ExpressionAttributeValues: { ':ahead': 3 } }));
    await batchWriteAll(db, table.tableName, [{ delete: entry(3) }]);
    await recount();
    const appended = await readJournal(table, customer);
    expect(appended.map((record) => [record.sequence, record.value])).toEqual([
      [1, 3],
      [2, 2],
      [3, 2],
      [4, 2],
    ]);
    expect(await countRead()).toBe(2);

    // The fold writes the newest record into the page; the journal empties at the next fold.
    expect(await foldJournal(table, customer, layout)).toEqual({ pagesWritten: 1, appendsDeleted: 0 });
    expect(await pageNow()).toEqual({ ...slot.page, type: 'sim_list_counts', c0Da: 2, through: 4 });
    // A record that arrives after the fold with a sequence it folded through is not taken.
    await db.send(new PutCommand({ TableName: table.tableName, Item: { ...key.simListJournalEntry(customer, 2), type: 'sim_list_journal', ...encodeRecords([{ ordering: 'id', bucket: 0, field: 'Da', value: 4 }]) } }));
    expect(await countRead()).toBe(2);

    // The bucket emptied: a zero count removes the attribute once folded.
    await batchWriteAll(db, table.tableName, [1, 2].map((id) => ({ delete: entry(id) })));
    await recount();
    expect(await countRead()).toBeUndefined();
    expect(await foldJournal(table, customer, layout)).toEqual({ pagesWritten: 1, appendsDeleted: 4 });
    expect(await pageNow()).toEqual({ ...slot.page, type: 'sim_list_counts', through: 5 });
    expect(await foldJournal(table, customer, layout)).toEqual({ pagesWritten: 0, appendsDeleted: 1 });
    expect(await readJournal(table, customer)).toEqual([]);
  });

  it('is folded once it holds journalFoldAppends appends, however few records each holds', async () => {
    // A trickle of one-record appends (a fleet coming in a few SIMs a consumer batch): folded every 10 here.
    const trickle = { ...table, journalFoldAppends: 10 };
    const other = 'jt';
    const otherSlot: CountSlot = { ...slot, page: key.simListIdCounts(other, 0, 0), bucketPartition: `SIMLI#${other}#0`, customerId: other };
    const head = async () => (await db.send(new GetCommand({ TableName: table.tableName, Key: key.simListJournalHead(other), ConsistentRead: true }))).Item;
    for (let append = 1; append <= 25; append += 1) {
      await batchWriteAll(db, table.tableName, [{ put: key.simListIdEntry(other, 0, 'Da', append) }]);
      await appendRecounts(trickle, other, [{ slot: otherSlot, prefixes: new Set(['Da']), put: true }], layout);
    }
    expect(await head()).toMatchObject({ seq: 25, folded: 20, done: 20, pending: 5 });
    // The journal keeps the appends since the fold before the last one (11 to 25); the page holds the count as of the last fold.
    expect((await readJournal(table, other)).map((record) => record.sequence)).toEqual(Array.from({ length: 15 }, (_, index) => 11 + index));
    expect((await db.send(new GetCommand({ TableName: table.tableName, Key: otherSlot.page, ConsistentRead: true }))).Item).toEqual({ ...otherSlot.page, type: 'sim_list_counts', c0Da: 20, through: 20 });
  });
});
