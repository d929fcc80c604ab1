/**
 * The seed loader (docs/seed.md): a document, held in memory (`npm start`, tests) or read from
 * a file incrementally (`npm run seed`), goes into a table in two passes. The first checks the
 * whole document (./validate.ts) and keeps of each SIM only a compact record (./sim-ledger.ts);
 * nothing is written unless it passes. The second reads the SIMs again and writes them in
 * batches with the other sections' items, so that memory is bounded by a batch and the
 * per-SIM records, not by the document: a million SIMs load in a few hundred MB.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { sendUnlessConditionFails } from '../../shared/db/conditions';
import type { SimItem } from '../../shared/db/items';
import { key } from '../../shared/db/keys';
import { directoryItems, mergeDirectory } from '../../shared/groups/directory';
import { msisdnDigits, msisdnHolders } from '../../shared/msisdn/msisdn-index';
import { BulkEntryCounter, readyGroupItems } from '../../shared/sim-lists/bulk-build';
import { fenceItems } from '../../shared/sim-lists/fences';
import { poolContributionItem, poolContributionOf } from '../../shared/sim-lists/pools';
import { putSims } from '../../shared/sims/sim-writes';
import { sectionItems, seedSimItems } from './items';
import type { SectionEvent } from './json-sections';
import { simSchema } from './schema';
import type { SeedSim } from './sim-ledger';
import { documentEvents, SeedChecker, type SeedScan } from './validate';

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

/** Options of a load. */
export interface SeedLoadOptions {
  listIndex?: ListIndexMode;
  /** The load's time: `updated_at` of SIMs without one, `verified_at` of credentials. */
  now?: Date;
  /**
   * The table was created for this load, so nothing in it can hold a document's MSISDN: the
   * check against the table (a read per 100 SIMs) is skipped.
   */
  newTable?: boolean;
  /**
   * A dry run of a load into a new table (`build`): every item goes to `sink` instead of the
   * table, which is neither read nor written (tests count and check what a load would write).
   */
  sink?: (item: Record<string, unknown>) => void;
  /** Hears how far a load is: once the document is checked, then every 10,000 SIMs written and at the end. */
  progress?: (progress: SeedProgress) => void;
}

/** How far a load is (SeedLoadOptions.progress). */
export interface SeedProgress {
  phase: 'checked' | 'writing' | 'written';
  /** SIMs checked or written so far, of `totalSims` in the document. */
  sims: number;
  totalSims: number;
  /** Items written so far. */
  items: number;
}

/** SIMs written between two progress reports. */
const progressEvery = 10_000;

/**
 * A seed document to load: its events (./json-sections.ts) in document order, in batches, as
 * often as asked (the loader reads it twice); `wanted` names the top-level keys whose values
 * are needed (the others may be skipped).
 */
export interface SeedSource {
  events(wanted?: (name: string) => boolean): AsyncIterable<readonly SectionEvent[]> | Iterable<readonly SectionEvent[]>;
}

/** Events handed on at once from a document held in memory. */
const eventsPerBatch = 1000;

/** A document held in memory (parsed JSON) as a source. */
export const documentSource = (document: unknown): SeedSource => ({
  *events(wanted) {
    let batch: SectionEvent[] = [];
    for (const event of documentEvents(document, wanted)) {
      batch.push(event);
      if (batch.length === eventsPerBatch) {
        yield batch;
        batch = [];
      }
    }
    yield batch;
  },
});

/** Items per BatchWriteItem call (the DynamoDB maximum). */
const batchSize = 25;
/** BatchWriteItem calls in flight at once. */
const parallelBatches = 8;
/** Attempts per batch before unprocessed items count as a failure. */
const maxAttempts = 10;
/** SIMs per call of the SIM write path on a table in use (`stream`): each claims its MSISDN, in parallel. */
const simsPerWrite = 250;
/** MSISDNs per read of the table's claims, and such reads in flight at once. */
const msisdnsPerRead = 100;
const parallelReads = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } };

/**
 * Puts items in BatchWriteItem calls of 25, `parallelBatches` in flight, retrying unprocessed
 * items with backoff; `put` waits while the calls in flight are as many as allowed, so that
 * what is held stays bounded. Counts what it writes per item `type` (list entries, which are
 * their key alone, under `sim_list_entry`).
 */
class BatchWriter {
  readonly counts = new Map<string, number>();
  items = 0;
  private batch: WriteRequest[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly documents: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly sink?: (item: Record<string, unknown>) => void,
  ) {}

  async put(item: Record<string, unknown>): Promise<void> {
    if (this.failure) throw this.failure.error;
    this.count(item);
    if (this.sink) return this.sink(item);
    this.batch.push({ PutRequest: { Item: item } });
    if (this.batch.length === batchSize) await this.send();
  }

  /** Counts an item written elsewhere (the SIM write path). */
  count(item: Record<string, unknown>): void {
    const type = typeof item.type === 'string' ? item.type : 'sim_list_entry';
    this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
    this.items += 1;
  }

  /** Sends what is pending and waits for every call in flight. */
  async close(): Promise<void> {
    if (this.batch.length > 0) await this.send();
    await Promise.all(this.inFlight);
    if (this.failure) throw this.failure.error;
  }

  private async send(): Promise<void> {
    const requests = this.batch;
    this.batch = [];
    const call: Promise<void> = this.write(requests)
      .catch((error: unknown) => {
        this.failure ??= { error };
      })
      .finally(() => this.inFlight.delete(call));
    this.inFlight.add(call);
    while (this.inFlight.size >= parallelBatches) await Promise.race(this.inFlight);
    if (this.failure) throw this.failure.error;
  }

  private async write(requests: WriteRequest[]): Promise<void> {
    let pending = requests;
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      if (attempt > maxAttempts) throw new Error(`${pending.length} seed items stayed unprocessed after ${maxAttempts} attempts`);
      if (attempt > 1) await sleep(Math.min(50 * 2 ** (attempt - 2), 2000) * (0.5 + Math.random() / 2));
      const output = await this.documents.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }));
      pending = (output.UnprocessedItems?.[this.tableName] ?? []) as WriteRequest[];
    }
  }
}

/**
 * Refuses (through the checker, naming each entry) a SIM that would take an MSISDN another SIM
 * of the table already holds (its claim, shared/msisdn/msisdn-index.ts, names another SIM id);
 * a SIM loaded again with its own number is fine. The claims are read 100 at a time while the
 * document is checked, before anything is written; the batch writes that follow cannot be
 * conditional, so a writer racing the load can still slip in between (the seed loader is an
 * operator's tool, not a concurrent path).
 */
class MsisdnsInTable {
  private pending: { index: number; sim: SeedSim }[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly table: { db: DynamoDBDocumentClient; tableName: string },
    private readonly report: (index: number, problem: string) => void,
  ) {}

  add(index: number, sim: SeedSim): void {
    if (sim.msisdn !== null) this.pending.push({ index, sim });
  }

  /** Reads the claims of what is pending, 100 at a time (all of it when `all`); waits while too many reads are in flight. */
  async drain(all: boolean): Promise<void> {
    while (this.pending.length >= msisdnsPerRead || (all && this.pending.length > 0)) {
      const sims = this.pending.splice(0, msisdnsPerRead);
      const read: Promise<void> = this.check(sims)
        .catch((error: unknown) => {
          this.failure ??= { error };
        })
        .finally(() => this.inFlight.delete(read));
      this.inFlight.add(read);
      while (this.inFlight.size >= parallelReads) await Promise.race(this.inFlight);
    }
    if (all) await Promise.all(this.inFlight);
    if (this.failure) throw this.failure.error;
  }

  private async check(sims: { index: number; sim: SeedSim }[]): Promise<void> {
    const holders = await msisdnHolders(this.table, sims.map(({ sim }) => sim.msisdn!));
    for (const { index, sim } of sims) {
      const holder = holders.get(msisdnDigits(sim.msisdn!));
      if (holder && holder.sim_id !== sim.id) {
        this.report(index, `msisdn "${sim.msisdn}" is already used by SIM ${holder.sim_id} (ICCID ${holder.iccid}) in the table`);
      }
    }
  }
}

/**
 * The first pass: checks the whole document (SeedChecker) and, unless `table` is undefined,
 * that no SIM takes an MSISDN another SIM of the table holds. SeedValidationError listing the
 * problems; otherwise what the second pass needs.
 */
export const scanSeed = async (source: SeedSource, table?: { db: DynamoDBDocumentClient; tableName: string }): Promise<SeedScan> => {
  let inTable: MsisdnsInTable | undefined;
  const checker = new SeedChecker({ onSim: (index, sim) => inTable?.add(index, sim) });
  if (table) inTable = new MsisdnsInTable(table, (index, problem) => checker.reportSim(index, problem));
  for await (const events of source.events()) {
    for (const event of events) checker.take(event);
    await inTable?.drain(false);
  }
  await inTable?.drain(true);
  return checker.finish();
};

/**
 * Loads a seed document (LOCAL-CONTRACT.md, "Seed document") into a table: scanSeed, then
 * writeSeed. The whole document is checked first, against the table too (unless `newTable`),
 * so a broken document (SeedValidationError) leaves the table untouched. Items are put, so an
 * item already in the table under the same key is replaced; load into an empty table for an
 * exact copy.
 */
export const loadSeed = async (source: SeedSource, target: SeedTarget, options: SeedLoadOptions = {}): Promise<SeedLoadResult> => {
  const scan = await scanSeed(source, options.newTable || options.sink ? undefined : tableOf(target));
  options.progress?.({ phase: 'checked', sims: scan.sims.count, totalSims: scan.sims.count, items: 0 });
  return writeSeed(scan, source, target, options);
};

/** The document client over a target's client (which it wraps without owning: never destroyed here). */
const tableOf = (target: SeedTarget) => ({
  db: DynamoDBDocumentClient.from(target.client, { marshallOptions: { removeUndefinedValues: true } }),
  tableName: target.tableName,
});

/**
 * The second pass of a load (loadSeed): writes a document that scanSeed checked (`scan`) from
 * its source, read again for its SIMs; an error when they differ from the ones checked.
 */
export const writeSeed = async (scan: SeedScan, source: SeedSource, target: SeedTarget, options: Omit<SeedLoadOptions, 'newTable'> = {}): Promise<SeedLoadResult> => {
  const now = options.now ?? new Date();
  const nowMs = now.getTime();
  const table = tableOf(target);
  const documents = table.db;
  const streamed = options.listIndex === 'stream';
  const sections = sectionItems(scan.document, scan.sims.poolHundredths, now);
  const groupIds = sections.customers.filter((customer) => customer.parent === null).map((customer) => customer.id);
  const directories = directoryItems({
    customers: sections.customers,
    bundles: sections.dataBundles.map((bundle) => ({ id: bundle.id, customer: bundle.customer_id, allowance_mb: bundle.allowance_mb, monthly_cost: bundle.monthly_cost, per_sim_access_fee: bundle.per_sim_access_fee })),
    poolUsage: streamed ? [] : scan.sims.poolUsage(),
  });
  if (options.sink && streamed) throw new Error('a dry run (sink) builds the list index: it cannot stream');
  const writer = new BatchWriter(documents, target.tableName, options.sink);

  if (streamed) {
    // A new group's empty list index and its directory come before its SIMs, so that the stream
    // consumer counts them; an existing group's directory learns the document's customers and
    // bundles (a group of an earlier version waits for rebuild-list-index).
    for (const groupId of groupIds) {
      const found = await documents.send(new GetCommand({ TableName: target.tableName, Key: key.customer(groupId), ConsistentRead: true }));
      if (found.Item) continue;
      for (const item of fenceItems(groupId, [0], { maxId: 0, state: 'ready', buildStartedMs: 0 })) {
        await sendUnlessConditionFails(documents, new PutCommand({ TableName: target.tableName, Item: item, ConditionExpression: 'attribute_not_exists(PK)' }));
      }
    }
    for (const directory of directories) await mergeDirectory(table, directory);
  }
  const { simContext, ...lists } = sections;
  for (const list of Object.values(lists)) for (const item of list) await writer.put(item as unknown as Record<string, unknown>);

  // The second pass: the SIMs, in batches.
  const plan = streamed ? undefined : scan.sims.listPlan((customerId) => simContext.owners.get(customerId)!.path, nowMs);
  const fences = new Map<string, number[]>(groupIds.map((groupId) => [groupId, plan?.groups.get(groupId)?.fences ?? [0]]));
  const counter = new BulkEntryCounter(fences);
  let waiting: SimItem[] = [];
  const writeWaiting = async () => {
    await writer.close();
    await putSims(table, waiting, nowMs);
    for (const sim of waiting) {
      writer.count(sim as unknown as Record<string, unknown>);
      writer.count({ type: 'sim_iccid' });
      if (sim.msisdn !== null && msisdnDigits(sim.msisdn)) writer.count({ type: 'msisdn_claim' });
    }
    waiting = [];
  };
  const changed = (what: string) => new Error(`the document changed between its check and its load (${what}); load it again`);
  let simsRead = 0;
  for await (const events of source.events((name) => name === 'sims')) {
    for (const event of events) {
      if (event.type !== 'entry' || event.name !== 'sims') continue;
      simsRead += 1;
      if (simsRead % progressEvery === 0) options.progress?.({ phase: 'writing', sims: simsRead, totalSims: scan.sims.count, items: writer.items });
      const checked = v.safeParse(simSchema, event.value);
      if (!checked.success || !scan.sims.matches(event.index, checked.output)) {
        throw changed(`sims[${event.index}] is not the entry checked`);
      }
      const items = seedSimItems(checked.output, simContext);
      if (!plan) {
        waiting.push(items.sim);
        if (waiting.length === simsPerWrite) await writeWaiting();
        continue;
      }
      items.sim.list_pos = plan.positionsOf(event.index);
      items.sim.listed_at_ms = nowMs;
      await writer.put(items.sim as unknown as Record<string, unknown>);
      await writer.put(items.iccid);
      if (items.claim) await writer.put(items.claim as unknown as Record<string, unknown>);
      const share = poolContributionOf(items.sim);
      if (share) await writer.put(poolContributionItem(share));
      for (const entry of counter.entriesOf(items.sim)) await writer.put(entry);
    }
  }
  if (simsRead !== scan.sims.count) throw changed(`${simsRead} SIMs where ${scan.sims.count} were checked`);
  if (waiting.length > 0) await writeWaiting();

  if (plan) {
    for (const item of plan.sequenceItems()) await writer.put(item);
    for (const groupId of groupIds) {
      for (const item of readyGroupItems(groupId, fences.get(groupId)!, plan.groups.get(groupId)?.maxId ?? 0)) await writer.put(item);
    }
    for (const item of counter.countItems()) await writer.put(item);
    for (const directory of directories) await writer.put(directory as unknown as Record<string, unknown>);
  }
  await writer.close();
  options.progress?.({ phase: 'written', sims: simsRead, totalSims: scan.sims.count, items: writer.items });
  return { items: writer.items, counts: Object.fromEntries(writer.counts) };
};

/** Loads a seed document held in memory (parsed JSON): loadSeed. */
export const loadSeedDocument = (document: unknown, target: SeedTarget, options: SeedLoadOptions = {}): Promise<SeedLoadResult> =>
  loadSeed(documentSource(document), target, options);
