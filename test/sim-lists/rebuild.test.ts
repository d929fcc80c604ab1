import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../../admin/cli';
import { seedItems } from '../../local/seed/items';
import { parseSeedDocument } from '../../local/seed/validate';
import type { StreamReader } from '../../local/stream-reader';
import type { SimItem } from '../../shared/db/items';
import { key, partition } from '../../shared/db/keys';
import { rebuildListIndex, type RebuildProgress } from '../../shared/sim-lists/rebuild';
import { changeSim } from '../../shared/sims/change-sim';
import { customersNamed, listSims, planListSims } from '../../shared/sims/list-sims';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';
import { eventually } from '../support/eventually';
import { allSims, coveringRequests, expectListsExact, expectedList, fleetSeed, startListConsumer, treeOf } from './support/fleet';

/**
 * `rebuild-list-index` (issue #19, point 4): a table filled by an earlier version (SIMs with
 * sim_scope items and no list index) is answered from its sim_scope items, correctly, while
 * the index is built with SIMs changing; a stopped rebuild goes on where it stopped; once
 * ready, A1 reads the index and the sim_scope items are gone.
 *
 * It writes thousands of items: @dynamodb-local-of-its-own (test/support/dynamodb-lease.ts).
 */

const now = Date.now();
const tree = treeOf('old');
const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);
let table: { db: DynamoDBDocumentClient; tableName: string };
let reader: StreamReader | undefined;
const document = fleetSeed(tree, 700, { firstId: 1, now });

/** The items an earlier version wrote: no list index, one sim_scope item per customer on each SIM's path. */
const legacyItems = (): Record<string, unknown>[] => {
  const items = seedItems(parseSeedDocument(document));
  const scope = (items.filter((item) => item.type === 'sim') as unknown as SimItem[]).flatMap((sim) =>
    sim.customer_path.map((customerId) => ({
      ...key.simScope(customerId, sim.id), type: 'sim_scope', sim_id: sim.id, owner_id: sim.customer_id, status: sim.status, updated_at_ms: sim.updated_at_ms,
    })),
  );
  return [...items, ...scope];
};

const write = async (items: Record<string, unknown>[]) => {
  for (let start = 0; start < items.length; start += 25) {
    let pending: Record<string, unknown>[] = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const output = await db.send(new BatchWriteCommand({ RequestItems: { [table.tableName]: pending } }));
      pending = (output.UnprocessedItems?.[table.tableName] ?? []) as Record<string, unknown>[];
    }
  }
};

/** A1 as the route answers it (index or sim_scope items), for the group's own key: count and the ids of one page. */
const answered = async (query: Record<string, string>) => {
  const deps = { db, tableName: table.tableName, now: Date.now };
  const scope = { customerId: 'old', customerPath: ['old'] };
  const plan = await planListSims(deps, scope, query, customersNamed(deps, query));
  const list = await listSims(deps, scope, plan);
  return { source: plan.directory.kind, count: list.count, ids: list.results.map((sim) => sim.id) };
};

const bruteForce = async (query: Record<string, string>) => {
  const sims = await allSims(db, table.tableName);
  const customerId = query.customer ? tree.find((customer) => customer.name === query.customer)!.id : 'old';
  const expected = expectedList(sims, {
    groupId: 'old', customerId, direct: query.customer !== undefined, status: query.status, page: Number(query.page ?? 1), pageSize: Number(query.page_size ?? 25),
  });
  return { count: expected.count, ids: expected.ids };
};

beforeAll(async () => {
  table = { db, tableName: await createTestTable() };
  await write(legacyItems());
  ({ reader } = await startListConsumer(table, dynamo));
}, 120_000);

afterAll(async () => {
  await reader?.stop();
  dynamo.destroy();
});

describe('rebuild-list-index', () => {
  it('answers a group of an earlier version from its sim_scope items, also for SIMs changed since', async () => {
    await changeSim(table, document.sims[10]!.iccid, { status: 'cancelled' }, Date.now());
    const query = { status: 'cancelled', page_size: '100' };
    await eventually(async () => expect({ ...(await answered(query)), source: undefined }).toEqual({ ...(await bruteForce(query)), source: undefined }), 15_000, 200);
    expect((await answered(query)).source).toBe('legacy');
  });

  it('builds the index while SIMs change, answering correctly throughout, resumes after a stop, then reads the index', async () => {
    const seen: RebuildProgress[] = [];
    // A first run that stops during marking, as a crashed or interrupted command would.
    const stopped = await rebuildListIndex(table, 'old', {
      onProgress: (progress) => {
        seen.push(progress);
        if (progress.phase === 'marking' && progress.done >= 300) throw new Error('stopped by the test');
      },
    }).catch((error: unknown) => error);
    expect(stopped).toEqual(new Error('stopped by the test'));
    const meta = await db.send(new GetCommand({ TableName: table.tableName, Key: key.simListMeta('old') }));
    expect(meta.Item).toMatchObject({ state: 'building' });
    // Meanwhile A1 still answers from the sim_scope items, exactly.
    const query = { page: '3', page_size: '50' };
    expect(await answered(query)).toEqual({ ...(await bruteForce(query)), source: 'legacy' });

    // SIMs change while the second run marks the rest.
    const changes = Promise.all(
      Array.from({ length: 30 }, (_, index) => changeSim(table, document.sims[index * 20]!.iccid, { status: index % 2 ? 'suspended' : 'active' }, Date.now())),
    );
    const lines: string[] = [];
    const code = await runAdmin(['rebuild-list-index', '--customer', 'old', '--table', table.tableName, '--endpoint', dynamodbEndpoint()], {
      env: {},
      out: (line) => lines.push(line),
      err: (line) => lines.push(line),
    });
    await changes;
    expect(code).toBe(0);
    expect(lines.at(-1)).toBe('List index of old: ready');
    // The progress bar went on from where the first run stopped.
    expect(lines.find((line) => line.includes('marking'))).toMatch(/\] +\d+% marking (300|[3-9]\d\d) of 700 SIMs \(old\)$/);

    const requests = coveringRequests(tree, [now - 2 * 86_400_000], 100);
    await expectListsExact(table, requests, 30_000, 500);
    expect((await answered({ page_size: '10' })).source).toBe('id');
    const scopeItems = await db.send(new QueryCommand({ TableName: table.tableName, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': partition.simScope('old') } }));
    expect(scopeItems.Items).toEqual([]);
    expect(await runAdmin(['rebuild-list-index', '--customer', 'old', '--table', table.tableName, '--endpoint', dynamodbEndpoint()], { env: {}, out: (line) => lines.push(line), err: () => undefined })).toBe(0);
    expect(lines.at(-1)).toBe('List index of old: already ready');
  }, 120_000);
});
