import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { sendUnlessConditionFails } from '../../shared/db/conditions';
import type { CustomerItem, DataBundleItem, SimItem } from '../../shared/db/items';
import { key } from '../../shared/db/keys';
import { assignBulkPositions, bulkIndexItems } from '../../shared/sim-lists/bulk-build';
import { fenceItems } from '../../shared/sim-lists/fences';
import { msisdnDigits, msisdnHolders } from '../../shared/msisdn/msisdn-index';
import { putSims } from '../../shared/sims/sim-writes';
import { directoryItems, mergeDirectory } from '../../shared/groups/directory';
import { poolContributionItem, poolContributionOf } from '../../shared/sim-lists/pools';
import { toHundredths } from '../../shared/vocabulary/amounts';
import { seedItems } from './items';
import { entryLabel, parseSeedDocument, SeedValidationError, type SeedDocument } from './validate';

/** Where a seed document is written: any table with the service's shape, local or deployed. */
export interface SeedTarget {
  client: DynamoDBClient;
  tableName: string;
}

/**
 * How the SIMs' list index (shared/sim-lists) is made: `build` computes it here with the items
 * (a new table nothing else writes: the local runtime's start, tests, a `--create-table` load);
 * `stream` writes the SIMs as any writer does and leaves the index to the table's stream
 * consumer (a table that is in use: a deployed one, a running `npm start`).
 */
export type ListIndexMode = 'build' | 'stream';

/** What a load wrote: the number of items in all and per item `type`. */
export interface SeedLoadResult {
  items: number;
  counts: Record<string, number>;
}

/** Items per BatchWriteItem call (the DynamoDB maximum). */
const batchSize = 25;
/** Batches in flight at once. */
const parallelBatches = 4;
/** Attempts per batch before unprocessed items count as a failure. */
const maxAttempts = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } };

const writeBatch = async (
  documents: DynamoDBDocumentClient,
  tableName: string,
  requests: WriteRequest[],
): Promise<void> => {
  let pending = requests;
  for (let attempt = 1; pending.length > 0; attempt += 1) {
    if (attempt > maxAttempts) {
      throw new Error(`${pending.length} seed items stayed unprocessed after ${maxAttempts} attempts`);
    }
    if (attempt > 1) await sleep(Math.min(50 * 2 ** (attempt - 2), 2000) * (0.5 + Math.random() / 2));
    const output = await documents.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
    pending = (output.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
  }
};

/**
 * Loads a seed document (LOCAL-CONTRACT.md, "Seed document") into a table. The whole document
 * is validated and turned into items before anything is written, so a broken document
 * (SeedValidationError) leaves the table untouched. Items are put, so an item already in the
 * table under the same key is replaced; load into an empty table for an exact copy.
 */
export const loadSeedDocument = async (
  document: unknown,
  target: SeedTarget,
  options: { listIndex?: ListIndexMode; now?: Date } = {},
): Promise<SeedLoadResult> => {
  const now = options.now ?? new Date();
  const parsed = parseSeedDocument(document);
  const items = seedItems(parsed, now);
  // The document client wraps the caller's client without owning it: never destroyed here.
  const documents = DynamoDBDocumentClient.from(target.client, { marshallOptions: { removeUndefinedValues: true } });
  const table = { db: documents, tableName: target.tableName };
  await refuseMsisdnsInUse(documents, target.tableName, parsed);
  const sims = items.filter((item) => item.type === 'sim') as unknown as SimItem[];
  const groupIds = (items.filter((item) => item.type === 'customer') as unknown as CustomerItem[])
    .filter((customer) => customer.parent === null)
    .map((customer) => customer.id);
  const newGroups: string[] = [];
  const streamed = options.listIndex === 'stream';
  const customers = items.filter((item) => item.type === 'customer') as unknown as CustomerItem[];
  const bundles = (items.filter((item) => item.type === 'data_bundle') as unknown as DataBundleItem[]).map((bundle) => ({
    id: bundle.id, customer: bundle.customer_id, allowance_mb: bundle.allowance_mb, monthly_cost: bundle.monthly_cost, per_sim_access_fee: bundle.per_sim_access_fee,
  }));
  const directories = directoryItems({ customers, bundles, poolUsage: streamed ? [] : poolUsageOf(sims) });
  if (!streamed) {
    items.push(...assignBulkPositions(sims, now.getTime()), ...bulkIndexItems(sims, groupIds), ...(directories as unknown as Record<string, unknown>[]));
    items.push(...sims.flatMap((sim) => { const share = poolContributionOf(sim); return share ? [poolContributionItem(share)] : []; }));
  } else {
    // META only for groups this load creates (a group of an earlier version waits for rebuild-list-index).
    for (const groupId of groupIds) {
      const found = await documents.send(new GetCommand({ TableName: target.tableName, Key: key.customer(groupId), ConsistentRead: true }));
      if (!found.Item) newGroups.push(groupId);
    }
  }
  const counts: Record<string, number> = {};
  const keys = new Set<string>();
  for (const item of items) {
    // List entries are their key alone (shared/sim-lists/entries.ts): counted under one name.
    const type = String(item.type ?? 'sim_list_entry');
    counts[type] = (counts[type] ?? 0) + 1;
    // BatchWriteItem refuses a batch with a key twice; validation should make this impossible.
    const itemKey = `${String(item.PK)}\u0000${String(item.SK)}`;
    if (keys.has(itemKey)) throw new Error(`two seed items share the key ${String(item.PK)} / ${String(item.SK)}`);
    keys.add(itemKey);
  }
  // A new group's empty list index and its directory come before its SIMs, so that the stream
  // consumer counts them; an existing group's directory learns the document's customers and bundles.
  for (const groupId of newGroups) {
    for (const item of fenceItems(groupId, [0], { maxId: 0, state: 'ready', buildStartedMs: 0 })) {
      await sendUnlessConditionFails(documents, new PutCommand({ TableName: target.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
    }
  }
  if (streamed) for (const directory of directories) await mergeDirectory(table, directory);
  // On a table in use, SIMs go through the SIM write path (shared/sims/sim-writes.ts) after the rest.
  const written = streamed ? items.filter((item) => item.type !== 'sim') : items;
  const batches: WriteRequest[][] = [];
  for (let start = 0; start < written.length; start += batchSize) {
    batches.push(written.slice(start, start + batchSize).map((item) => ({ PutRequest: { Item: item } })));
  }
  let next = 0;
  let failed = false;
  const worker = async (): Promise<void> => {
    while (!failed && next < batches.length) {
      const batch = batches[next++]!;
      try {
        await writeBatch(documents, target.tableName, batch);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallelBatches, batches.length) }, worker));
  if (streamed) await putSims(table, sims, now.getTime());
  return { items: items.length, counts };
};

/** Each SIM on a bundle with its usage in hundredths (a bulk-built directory's pool sums). */
const poolUsageOf = (sims: readonly SimItem[]) =>
  sims.flatMap((sim) => (sim.data_bundle ? [{ simId: sim.id, bundleId: sim.data_bundle.id, hundredths: toHundredths(sim.data_used_mb) }] : []));

/**
 * Refuses (SeedValidationError, naming each entry) a document whose SIM would take an MSISDN
 * that another SIM of the table already holds (its claim, shared/msisdn/msisdn-index.ts, names
 * another SIM id), before anything is written. A SIM loaded again with its own number is fine.
 * Read before the batch writes, which cannot be conditional: a writer racing the load can still
 * slip in between (the seed loader is an operator's tool, not a concurrent path).
 */
const refuseMsisdnsInUse = async (db: DynamoDBDocumentClient, tableName: string, document: SeedDocument): Promise<void> => {
  const holders = await msisdnHolders({ db, tableName }, document.sims.flatMap((sim) => (sim.msisdn === null ? [] : [sim.msisdn])));
  const problems = document.sims.flatMap((sim, index) => {
    const holder = sim.msisdn === null ? undefined : holders.get(msisdnDigits(sim.msisdn));
    return holder && holder.sim_id !== sim.id
      ? [`${entryLabel('sims', index, sim)}: msisdn "${sim.msisdn}" is already used by SIM ${holder.sim_id} (ICCID ${holder.iccid}) in the table`]
      : [];
  });
  if (problems.length > 0) throw new SeedValidationError(problems);
};
