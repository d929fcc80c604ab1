import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupDirectoryItem } from '../../shared/db/items';
import { key } from '../../shared/db/keys';
import { directoryItems, mergeDirectory, readGroupDirectory } from '../../shared/groups/directory';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';

/**
 * mergeDirectory (shared/groups/directory.ts) into a group that has a directory already: a
 * merge of customers alone, or of bundles alone, names only the map it sets (DynamoDB refuses
 * an expression attribute name the expression does not use), as a seed loaded into a table in
 * use with a new sub-customer and no new bundle does.
 */
const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);
let table: { db: typeof db; tableName: string };

const bundle = { customer: 'grp', allowance_mb: '100.00', monthly_cost: '1.00', per_sim_access_fee: '0.10' };

beforeAll(async () => {
  table = { db, tableName: await createTestTable({ stream: false }) };
  const [first] = directoryItems({ customers: [{ id: 'grp', name: 'Group', path: ['grp'] }], bundles: [{ id: 'b1', ...bundle }], poolUsage: [] });
  await mergeDirectory(table, first!);
});

afterAll(() => dynamo.destroy());

describe('merging into an existing group directory', () => {
  it('adds customers without bundles, then a bundle without customers', async () => {
    const item = (customers: GroupDirectoryItem['customers'], bundles: GroupDirectoryItem['bundles']): GroupDirectoryItem => ({
      ...key.groupDirectory('grp'), type: 'group_directory', group_id: 'grp', customers, bundles, version: 0, pool_version: 0,
    });
    await mergeDirectory(table, item({ sub: { name: 'Sub' } }, {}));
    await mergeDirectory(table, item({}, { b2: bundle }));
    const directory = await readGroupDirectory(table, 'grp', true);
    expect([[...directory!.customers].sort(), [...directory!.bundles.keys()].sort()]).toEqual([
      [['grp', { name: 'Group' }], ['sub', { name: 'Sub' }]],
      ['b1', 'b2'],
    ]);
  });
});
