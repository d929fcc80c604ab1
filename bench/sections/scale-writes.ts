/**
 * Section 5, scale, writes (issue #19, points 1 and 3): what keeping the list index exact
 * costs, measured on the scale fleet (a tree three levels deep) with the maintain-sim-lists
 * consumer running as `npm start` runs it (the local stream reader, this process):
 * - write units per kind of SIM change (status, usage, owner, new, removed), for one change
 *   alone and per change of batches of 100 (20 of them, then every journal of the tree folded
 *   twice, so that the folds a steady flow of changes pays are in the figure), split by what is
 *   written;
 * - L: how long after a change is acknowledged the list's count shows it;
 * - the most writes any one partition key takes while 10,000 SIMs of the group change (a
 *   status sweep in id order and a usage run), the figure that 10,000 changes a second would
 *   put on it in that second.
 */
import { BatchGetCommand, GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SimItem } from '../../shared/db/items';
import { gsi1, key, partition, partitionPrefix, sortKeyPrefix } from '../../shared/db/keys';
import { readList } from '../../shared/sim-lists/read-list';
import { changeSimsFields, putSims, removeSim, type SimFields } from '../../shared/sims/sim-writes';
import type { BenchCall, CallRecorder } from '../lib/call-recorder';
import type { SectionContext } from '../lib/context';
import { ownerOf, scaleCustomers, scaleSectionLabel, type ScaleFleet } from '../lib/scale-fleet';
import { readGroupFences } from '../../shared/sim-lists/fences';
import { defaultJournalFoldAt, foldJournal } from '../../shared/sim-lists/journal';
import { decodeRecords } from '../../shared/sim-lists/journal-records';
import { median, round } from '../lib/stats';

/** Write units of one kind of change, per change. */
export interface WriteCostFigure {
  change: string;
  /** One change alone, or per change of a batch. */
  batch: number;
  /** Batches measured together (with the folds of the journals after them when more than one change a batch). */
  rounds: number;
  total: number;
  /** By what was written: the SIM item, entries, count pages, position counters, fences. */
  parts: Record<string, number>;
}

/** The lag figures and the hottest partition keys. */
export interface ScaleWritesResult {
  costs: WriteCostFigure[];
  lagMs: { p50: number; max: number; samples: number };
  hotKeys: { run: string; changes: number; seconds: number; hottest: { key: string; writes: number }[] }[];
  levels: number;
}

const writeCommands = /^(Put|Update|Delete|BatchWrite|TransactWrite)(Item|Items)?Command$/;

/** What an item key is part of. */
const partOf = (partitionKey: string): string => {
  const is = (...prefixes: string[]) => prefixes.some((prefix) => partitionKey.startsWith(prefix));
  if (is(partitionPrefix.sim)) return 'SIM item';
  if (is(partitionPrefix.simListSequence)) return 'position counters';
  if (is(partitionPrefix.simListIdCounts, partitionPrefix.simListTimeCounts)) return 'count pages';
  if (is(partitionPrefix.simListJournal)) return 'count journal';
  if (is(partitionPrefix.simListIdBucket, partitionPrefix.simListTimeBucket)) return 'entries';
  if (is(partitionPrefix.simList)) return 'fences';
  return 'other';
};

/** The partition keys a write call wrote, one per item written. */
const writtenKeys = (call: BenchCall): string[] => {
  const input = call.input as {
    Key?: { PK?: string };
    Item?: { PK?: string };
    RequestItems?: Record<string, { PutRequest?: { Item?: { PK?: string } }; DeleteRequest?: { Key?: { PK?: string } } }[]>;
    TransactItems?: Record<string, { Key?: { PK?: string }; Item?: { PK?: string } }>[];
  };
  if (input.RequestItems) {
    return Object.values(input.RequestItems).flat().map((request) => String(request.PutRequest?.Item?.PK ?? request.DeleteRequest?.Key?.PK));
  }
  if (input.TransactItems) return input.TransactItems.flatMap((entry) => Object.values(entry).map((operation) => String(operation.Key?.PK ?? operation.Item?.PK)));
  return [String(input.Key?.PK ?? input.Item?.PK)];
};

/** Write units of the calls, split by part (a batch call's units shared among its items). */
export const writeUnits = (calls: readonly BenchCall[]): { total: number; parts: Record<string, number> } => {
  const parts: Record<string, number> = {};
  let total = 0;
  for (const call of calls) {
    if (!writeCommands.test(call.command) || call.error) continue;
    const units = call.capacityUnits ?? 0;
    const keys = writtenKeys(call);
    total += units;
    for (const partitionKey of keys) parts[partOf(partitionKey)] = (parts[partOf(partitionKey)] ?? 0) + units / keys.length;
  }
  return { total, parts };
};

/** SIM items by id (strongly consistent). */
const readSims = async (db: DynamoDBDocumentClient, tableName: string, ids: number[]): Promise<SimItem[]> => {
  const sims: SimItem[] = [];
  for (let start = 0; start < ids.length; start += 100) {
    const output = await db.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: ids.slice(start, start + 100).map(key.sim), ConsistentRead: true } } }));
    sims.push(...((output.Responses?.[tableName] ?? []) as SimItem[]));
  }
  return sims.sort((left, right) => left.id - right.id);
};

/** Ids of fleet SIMs owned by a site (three levels deep), `count` of them from `from` on. */
const siteSimIds = (fleet: ScaleFleet, site: string, from: number, count: number): number[] => {
  const ids: number[] = [];
  for (let index = from; ids.length < count && index < fleet.sims; index += 1) if (ownerOf(index) === site) ids.push(fleet.firstId + index);
  return ids;
};

/**
 * Fills every count journal of the fleet's tree as full as a steady flow of scattered changes
 * leaves it, so that the list cases are read at their dearest: usage changes of a site's SIMs
 * (every level's journal takes about a record a change) in batches of 100, each read by the
 * consumer on its own, until the group's journal has been folded once (that fold's records stay
 * until the next) and has gathered since as much as one more batch leaves under the fold's
 * threshold. Returns the records and bytes of the group's journal then.
 */
export const fillCountJournals = async (
  context: SectionContext,
  input: { db: DynamoDBDocumentClient; tableName: string; fleet: ScaleFleet; recorder: CallRecorder; batches: number },
): Promise<{ records: number; bytes: number; batches: number }> => {
  const { db, tableName, fleet } = input;
  const table = { db, tableName };
  const head = async () => {
    const item = (await db.send(new GetCommand({ TableName: tableName, Key: key.simListJournalHead(fleet.groupId), ConsistentRead: true }))).Item;
    return { pending: Number(item?.pending ?? 0), done: Number(item?.done ?? 0) };
  };
  context.log(`scale: count journals filled by up to ${input.batches} batches of 100 usage changes`);
  // Site SIMs from the middle of the fleet: the writes below take theirs from the start, the sweep from the end.
  let from = Math.floor(fleet.sims / 2);
  let batches = 0;
  for (let last = await head(); batches < input.batches; ) {
    const ids = siteSimIds(fleet, 'scale-north-a', from, 100);
    from = ids.at(-1)! - fleet.firstId + 1;
    await changeSimsFields(table, (await readSims(db, tableName, ids)).map((current) => ({ current, fields: { data_used_mb: (Number(current.data_used_mb) + 3).toFixed(2) } })), Date.now());
    await input.recorder.settle(1_500, 600_000);
    batches += 1;
    const now = await head();
    const added = now.pending - last.pending;
    last = now;
    if (now.done > 0 && added > 0 && now.pending + 1.5 * added >= defaultJournalFoldAt) break;
  }
  const output = await db.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :appends)',
      ExpressionAttributeValues: { ':pk': partition.simListJournal(fleet.groupId), ':appends': sortKeyPrefix.simListJournal },
    }),
  );
  const records = (output.Items ?? []).flatMap((item) => decodeRecords(item));
  const bytes = (output.Items ?? []).reduce((sum, item) => sum + JSON.stringify(item).length, 0);
  context.notes.push(
    `Section 5's list cases were read with the count journals full: ${batches} batches of 100 usage changes before them left ` +
      `${records.length} records (about ${Math.round(bytes / 1024)} KB) in the group's journal, what a steady flow of scattered changes leaves at most ` +
      `(the records of a fold kept until the next fold, and since it nearly another fold's worth of ${defaultJournalFoldAt}).`,
  );
  return { records: records.length, bytes, batches };
};

/** Runs the writes part of section 5 and records its targets. */
export const runScaleWrites = async (
  context: SectionContext,
  input: {
    db: DynamoDBDocumentClient;
    tableName: string;
    fleet: ScaleFleet;
    recorder: CallRecorder;
    sweep: number;
    /** Batches of 100 changes per kind for the amortised figure. */
    rounds: number;
    /** The runtime's stream reader, held while a sweep is written so that the sweep reaches the consumer as a burst does. */
    stream: { hold(): void; release(): void };
  },
): Promise<ScaleWritesResult> => {
  const { db, tableName, fleet, recorder } = input;
  const table = { db, tableName };
  const site = 'scale-north-a';
  const sibling = { customer_id: 'scale-north-b', customer_name: 'Scale North B', customer_path: ['scale', 'scale-north', 'scale-north-b'] };
  const settle = () => recorder.settle(1_500, 600_000);
  let nextFree = 0;
  const take = (count: number) => {
    const ids = siteSimIds(fleet, site, nextFree, count);
    // Each change takes SIMs of the site no change took before: some 12,000 in all, which a fleet of 50,000 or more has.
    if (ids.length < count) throw new Error(`the site ${site} has no ${count} SIMs left for this part: the section needs --scale=50000 or more`);
    nextFree = ids.at(-1)! - fleet.firstId + 1;
    return ids;
  };
  let newId = fleet.firstId + fleet.sims + 1_000;

  const kinds: { change: string; apply: (ids: number[]) => Promise<unknown> }[] = [
    { change: 'status', apply: async (ids) => changeSimsFields(table, (await readSims(db, tableName, ids)).map((current) => ({ current, fields: { status: current.status === 'suspended' ? 'active' : 'suspended' } })), Date.now()) },
    { change: 'usage', apply: async (ids) => changeSimsFields(table, (await readSims(db, tableName, ids)).map((current) => ({ current, fields: { data_used_mb: (Number(current.data_used_mb) + 1).toFixed(2) } })), Date.now()) },
    { change: 'owner (to a sibling site)', apply: async (ids) => changeSimsFields(table, (await readSims(db, tableName, ids)).map((current) => ({ current, fields: sibling as SimFields })), Date.now()) },
    {
      change: 'new SIM',
      apply: async (ids) => {
        const templates = await readSims(db, tableName, ids);
        // A new SIM has its own ICCID and number (4478…, which no SIM of the fleet holds: the fleet's are 4477…).
        return putSims(
          table,
          templates.map((template) => {
            const id = (newId += 1);
            const iccid = `8945${String(id).padStart(15, '0')}`;
            return { ...template, ...key.sim(id), ...gsi1.simByIccid(iccid), id, iccid, msisdn: `4478${String(id).padStart(9, '0').slice(-9)}`, updated_at_ms: Date.now() };
          }),
          Date.now(),
        );
      },
    },
    { change: 'removed SIM', apply: (ids) => Promise.all(ids.map((id) => removeSim(table, id))) },
  ];

  // Every count journal of the tree folded twice (the second fold deletes what the first folded): empty journals.
  const layout = (await readGroupFences(table, fleet.groupId, true))!;
  const foldAll = async () => {
    for (let round = 0; round < 2; round += 1) await Promise.all(scaleCustomers.map((customer) => foldJournal(table, customer.id, layout)));
  };

  context.log('scale writes: write units per kind of change');
  const costs: WriteCostFigure[] = [];
  for (const kind of kinds) {
    for (const [batch, rounds] of [
      [1, 1],
      [100, input.rounds],
    ] as const) {
      await settle();
      if (batch > 1) await foldAll();
      recorder.reset();
      for (let round = 0; round < rounds; round += 1) {
        await kind.apply(take(batch));
        await settle();
      }
      if (batch > 1) await foldAll();
      const measured = writeUnits(recorder.calls);
      const changes = batch * rounds;
      costs.push({
        change: kind.change,
        batch,
        rounds,
        total: round(measured.total / changes, 2),
        parts: Object.fromEntries(Object.entries(measured.parts).map(([part, units]) => [part, round(units / changes, 2)])),
      });
    }
  }

  context.log('scale writes: lag between a change and the count that shows it');
  const lags: number[] = [];
  for (let sample = 0; sample < 10; sample += 1) {
    const [current] = await readSims(db, tableName, take(1));
    const request = { groupId: 'scale', customerId: site, direct: true, status: 'trial', page: 1, pageSize: 1 };
    const before = (await readList(table, request))!.count;
    const target = current!.status === 'trial' ? 'active' : 'trial';
    const expected = before + (target === 'trial' ? 1 : -1);
    await changeSimsFields(table, [{ current: current!, fields: { status: target } }], Date.now());
    const acknowledged = performance.now();
    while ((await readList(table, request))!.count !== expected) {
      if (performance.now() - acknowledged > 60_000) throw new Error('the list did not show a change within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    lags.push(performance.now() - acknowledged);
  }

  context.log(`scale writes: the hottest partition keys while ${input.sweep} SIMs change`);
  const hotKeys: ScaleWritesResult['hotKeys'] = [];
  const sweepIds = Array.from({ length: input.sweep }, (_, index) => fleet.firstId + fleet.sims - input.sweep - 2_000 + index);
  for (const run of [
    { run: `status sweep of ${input.sweep} SIMs in id order`, fields: (current: SimItem): SimFields => ({ status: current.status === 'inactive' ? 'active' : 'inactive' }) },
    { run: `usage run over the same ${input.sweep} SIMs`, fields: (current: SimItem): SimFields => ({ data_used_mb: (Number(current.data_used_mb) + 2).toFixed(2) }) },
  ]) {
    await settle();
    recorder.reset();
    const started = performance.now();
    // 10,000 changes in a second reach a consumer as full batches (the stream holds what it has not
    // read yet): the sweep is written with the reader held, then read in batches of the consumer's size.
    input.stream.hold();
    try {
      for (let start = 0; start < sweepIds.length; start += 400) {
        await Promise.all(
          [0, 100, 200, 300].map(async (offset) => {
            const ids = sweepIds.slice(start + offset, start + offset + 100);
            if (ids.length === 0) return;
            await changeSimsFields(table, (await readSims(db, tableName, ids)).map((current) => ({ current, fields: run.fields(current) })), Date.now());
          }),
        );
      }
    } finally {
      input.stream.release();
    }
    await settle();
    const writes = new Map<string, number>();
    for (const call of recorder.calls) {
      if (!writeCommands.test(call.command) || call.error) continue;
      for (const partitionKey of writtenKeys(call)) writes.set(partitionKey, (writes.get(partitionKey) ?? 0) + 1);
    }
    const hottest = [...writes].sort((left, right) => right[1] - left[1]).slice(0, 3).map(([partitionKey, count]) => ({ key: partitionKey, writes: count }));
    hotKeys.push({ run: run.run, changes: sweepIds.length, seconds: round((performance.now() - started) / 1000, 1), hottest });
  }

  const result: ScaleWritesResult = { costs, lagMs: { p50: round(median(lags), 0), max: round(Math.max(...lags), 0), samples: lags.length }, hotKeys, levels: 3 };
  recordTargets(context, result, input.fleet);
  return result;
};

const recordTargets = (context: SectionContext, result: ScaleWritesResult, fleet: ScaleFleet): void => {
  const section = scaleSectionLabel(fleet.sims, fleet.door, fleet.order);
  const orderings = 2;
  for (const cost of result.costs) {
    const entries = cost.parts.entries ?? 0;
    const counters = (cost.parts['count pages'] ?? 0) + (cost.parts['count journal'] ?? 0) + (cost.parts['position counters'] ?? 0) + (cost.parts.fences ?? 0);
    const subject = `${cost.change}, ${cost.batch === 1 ? 'one change alone' : `per change of ${cost.rounds} batches of ${cost.batch}, journals folded`}`;
    context.targets.check({
      section, id: 'scale-entry-writes', subject, target: `list entries ≤ 2 write units per level per ordering = ${2 * result.levels * orderings}`,
      actual: `${round(entries, 2)} (all: ${cost.total}; ${Object.entries(cost.parts).map(([part, units]) => `${part} ${units}`).join(', ')})`, met: entries <= 2 * result.levels * orderings,
    });
    if (cost.batch > 1) {
      context.targets.check({
        section, id: 'scale-counter-writes', subject, target: '≤ 1 write unit amortised for counters',
        actual: `${round(counters, 2)} (count journal ${cost.parts['count journal'] ?? 0}, count pages ${cost.parts['count pages'] ?? 0}, position counters ${cost.parts['position counters'] ?? 0})`,
        met: counters <= 1,
      });
    }
  }
  context.targets.check({ section, id: 'scale-lag', subject: 'a status change to the count of its list', target: 'L ≤ 2,000 ms', actual: `p50 ${result.lagMs.p50} ms, max ${result.lagMs.max} ms`, met: result.lagMs.max <= 2_000 });
  for (const run of result.hotKeys) {
    const hottest = run.hottest[0];
    const target = '≤ 1,000 writes on any partition key while 10,000 SIMs change';
    // A key's writes do not grow in proportion to a run (a bucket holds at most 500 SIMs): only a run of 10,000 shows it.
    if (run.changes < 10_000) context.targets.skip({ section, id: 'scale-hot-keys', subject: run.run, target, reason: `a run of ${run.changes} changes (--quick)` });
    else context.targets.check({ section, id: 'scale-hot-keys', subject: run.run, target, actual: `${hottest?.writes ?? 0} on ${hottest?.key ?? '—'}`, met: (hottest?.writes ?? 0) <= 1_000 });
  }
};
