import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { msisdnDigits, msisdnHolders } from '../../shared/sims/msisdn-index';
import { seedItems } from './items';
import { entryLabel, parseSeedDocument, SeedValidationError, type SeedDocument } from './validate';

/** Where a seed document is written: any table with the service's shape, local or deployed. */
export interface SeedTarget {
  client: DynamoDBClient;
  tableName: string;
}

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
export const loadSeedDocument = async (document: unknown, target: SeedTarget): Promise<SeedLoadResult> => {
  const parsed = parseSeedDocument(document);
  const items = seedItems(parsed);
  const counts: Record<string, number> = {};
  const keys = new Set<string>();
  for (const item of items) {
    const type = String(item.type);
    counts[type] = (counts[type] ?? 0) + 1;
    // BatchWriteItem refuses a batch with a key twice; validation should make this impossible.
    const itemKey = `${String(item.PK)}\u0000${String(item.SK)}`;
    if (keys.has(itemKey)) throw new Error(`two seed items share the key ${String(item.PK)} / ${String(item.SK)}`);
    keys.add(itemKey);
  }
  const batches: WriteRequest[][] = [];
  for (let start = 0; start < items.length; start += batchSize) {
    batches.push(items.slice(start, start + batchSize).map((item) => ({ PutRequest: { Item: item } })));
  }
  // The document client wraps the caller's client without owning it: never destroyed here.
  const documents = DynamoDBDocumentClient.from(target.client, { marshallOptions: { removeUndefinedValues: true } });
  await refuseMsisdnsInUse(documents, target.tableName, parsed);
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
  return { items: items.length, counts };
};

/**
 * Refuses (SeedValidationError, naming each entry) a document whose SIM would take an MSISDN
 * that another SIM of the table already holds (its claim, shared/sims/msisdn-index.ts, names
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
