import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SimItem } from '../../shared/db/items';
import { BulkEntryCounter, readyGroupItems } from '../../shared/sim-lists/bulk-build';
import { readList } from '../../shared/sim-lists/read-list';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';

describe('a list in id order of more count pages than count partitions', () => {
  let client: DynamoDBClient;
  let db: DynamoDBDocumentClient;
  let tableName: string;
  // 60 buckets of one SIM each: 10 count pages of 6 buckets over 8 partitions (pages 0 and 8 share one).
  const fences = Array.from({ length: 60 }, (_, bucket) => bucket * 1000);
  const ids = fences.map((fence) => fence + 500);
  beforeAll(async () => {
    client = testDynamoClient();
    db = testDocumentClient(client);
    tableName = await createTestTable({ stream: false });
    const counter = new BulkEntryCounter(new Map([['big', fences]]));
    const sim = (id: number) => ({ id, status: 'active', customer_id: 'big', customer_path: ['big'], updated_at_ms: 0, list_pos: {} }) as unknown as SimItem;
    const items = [...ids.flatMap((id) => counter.entriesOf(sim(id))), ...counter.countItems(), ...readyGroupItems('big', fences, ids.at(-1)!)];
    for (let start = 0; start < items.length; start += 25) {
      await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }
  });
  afterAll(() => client.destroy());

  it('pages in id order whichever partition a count page lives in', async () => {
    const page = (number: number, pageSize: number) => readList({ db, tableName }, { groupId: 'big', customerId: 'big', direct: false, page: number, pageSize });
    expect(await page(10, 1)).toEqual({ count: 60, ids: [9500] });
    expect(await page(49, 1)).toEqual({ count: 60, ids: [48500] });
    expect(await page(2, 25)).toEqual({ count: 60, ids: ids.slice(25, 50) });
    expect(await page(3, 25)).toEqual({ count: 60, ids: ids.slice(50) });
  });
});
