import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { roundTrips, type RecordedCall } from '../../shared/db/call-counter';
import { key, partitionPrefix } from '../../shared/db/keys';

/** One DynamoDB call with what it read: shared/db/call-counter's record plus output figures. */
export interface BenchCall extends RecordedCall {
  /** Items the call returned: Query/Scan Count, BatchGetItem's returned items, GetItem 0 or 1. */
  itemsReturned: number;
  /** Items a Query/Scan evaluated (ScannedCount); for other calls the same as itemsReturned. */
  itemsScanned: number;
  /** Full SIM items (`PK = SIM#<id>`, `SK = SIM`) returned by GetItem / BatchGetItem. */
  simItemsRead: number;
  /** The error name when the call failed (e.g. ConditionalCheckFailedException). */
  error?: string;
  /** Capacity units DynamoDB reported for the call (read units for reads, write units for writes). */
  capacityUnits?: number;
}

/** The calls recorded on a client, in start order, with their sequential round trips. */
export interface CallRecorder {
  /** Every call recorded since the last reset, whoever made it. */
  readonly calls: BenchCall[];
  /**
   * Runs `work` and returns, with its value, exactly the calls made in its asynchronous
   * context (AsyncLocalStorage): a request's own calls, never those of a queue consumer or
   * any other background work running at the same time.
   */
  measure<T>(work: () => Promise<T>): Promise<{ value: T; calls: BenchCall[] }>;
  reset(): void;
  /** Sequential round trips of the recorded calls (shared/db/call-counter.ts `roundTrips`). */
  roundTrips(): number;
  /** Resolves once no call has started or ended for `quietMs` (background consumers done), at most `maxMs`. */
  settle(quietMs?: number, maxMs?: number): Promise<void>;
  /** Stops / restarts recording (a load test would fill memory for nothing). */
  pause(): void;
  resume(): void;
  detach(): void;
}

type Output = {
  Item?: Record<string, unknown>;
  Items?: unknown[];
  Count?: number;
  ScannedCount?: number;
  Responses?: Record<string, Record<string, unknown>[]>;
  ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[];
};

/** The commands that take ReturnConsumedCapacity (reads and writes of items). */
const dataCommands = /^(Get|Put|Update|Delete|Query|Scan|BatchGet|BatchWrite|TransactGet|TransactWrite)(Item)?Command$/;

/** The capacity units of a ConsumedCapacity answer (one object, or one per table for batch calls). */
const unitsOf = (consumed: Output['ConsumedCapacity']): number | undefined =>
  consumed === undefined ? undefined : (Array.isArray(consumed) ? consumed : [consumed]).reduce((sum, entry) => sum + Number(entry.CapacityUnits ?? 0), 0);

const isSimItem = (item: Record<string, unknown> | undefined): boolean =>
  item !== undefined && typeof item.PK === 'string' && item.PK.startsWith(partitionPrefix.sim) && item.SK === key.sim(0).SK;

const figures = (command: string, output: Output | undefined): Pick<BenchCall, 'itemsReturned' | 'itemsScanned' | 'simItemsRead'> => {
  if (!output) return { itemsReturned: 0, itemsScanned: 0, simItemsRead: 0 };
  if (command === 'QueryCommand' || command === 'ScanCommand') {
    const count = output.Count ?? output.Items?.length ?? 0;
    return { itemsReturned: count, itemsScanned: output.ScannedCount ?? count, simItemsRead: 0 };
  }
  if (command === 'BatchGetItemCommand' || command === 'BatchGetCommand') {
    const items = Object.values(output.Responses ?? {}).flat();
    return { itemsReturned: items.length, itemsScanned: items.length, simItemsRead: items.filter(isSimItem).length };
  }
  if (command === 'GetItemCommand' || command === 'GetCommand') {
    const found = output.Item ? 1 : 0;
    return { itemsReturned: found, itemsScanned: found, simItemsRead: isSimItem(output.Item) ? 1 : 0 };
  }
  return { itemsReturned: 0, itemsScanned: 0, simItemsRead: 0 };
};

/**
 * Attaches a recording middleware (initialize step, so SDK retries count as part of their call
 * and inputs/outputs are in document form) to the handlers' own DynamoDB document client. It
 * records what shared/db/call-counter.ts records (command, input, start and end) and, for the
 * scale figures, how many items each call returned and scanned and how many full SIM items
 * were read. Round trips are grouped by call-counter's `roundTrips`.
 */
export const recordCalls = (client: DynamoDBDocumentClient): CallRecorder => {
  const calls: BenchCall[] = [];
  const scope = new AsyncLocalStorage<BenchCall[]>();
  let active = true;
  let paused = false;
  let lastActivity = performance.now();
  let inFlight = 0;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!active || paused) return next(args);
      const command = String((context as { commandName?: string }).commandName ?? 'unknown');
      const sink = scope.getStore();
      // Every call asks DynamoDB for the units it consumes (DynamoDB Local answers too): the read and write units of the figures.
      if (dataCommands.test(command)) (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const startedAt = performance.now();
      lastActivity = startedAt;
      inFlight += 1;
      let output: Output | undefined;
      let error: string | undefined;
      try {
        const result = await next(args);
        output = result.output as Output;
        return result;
      } catch (caught) {
        error = (caught as Error)?.name ?? 'Error';
        throw caught;
      } finally {
        inFlight -= 1;
        const endedAt = performance.now();
        lastActivity = endedAt;
        const call: BenchCall = {
          command,
          input: (args.input ?? {}) as Record<string, unknown>,
          startedAt,
          endedAt,
          ...figures(command, output),
          ...(error ? { error } : {}),
          ...(unitsOf(output?.ConsumedCapacity) === undefined ? {} : { capacityUnits: unitsOf(output?.ConsumedCapacity) }),
        };
        calls.push(call);
        sink?.push(call);
      }
    },
    { step: 'initialize', name: `benchCallRecorder-${Math.random().toString(36).slice(2)}` },
  );
  return {
    calls,
    reset: () => {
      calls.length = 0;
    },
    roundTrips: () => roundTrips(calls),
    measure: async (work) => {
      const sink: BenchCall[] = [];
      const value = await scope.run(sink, work);
      return { value, calls: inStartOrder(sink) };
    },
    settle: async (quietMs = 300, maxMs = 10_000) => {
      const deadline = performance.now() + maxMs;
      while (performance.now() < deadline) {
        if (inFlight === 0 && performance.now() - lastActivity >= quietMs) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    pause: () => {
      paused = true;
    },
    resume: () => {
      paused = false;
    },
    detach: () => {
      active = false;
    },
  };
};

/**
 * The time during which at least one of the calls was in flight (ms): what a request spent
 * waiting for DynamoDB, the rest of its time being its own work.
 */
export const timeInCalls = (calls: readonly RecordedCall[]): number => {
  let total = 0;
  let openFrom = Number.NaN;
  let openTo = Number.NaN;
  for (const call of [...calls].sort((left, right) => left.startedAt - right.startedAt)) {
    if (Number.isNaN(openFrom) || call.startedAt > openTo) {
      if (!Number.isNaN(openFrom)) total += openTo - openFrom;
      openFrom = call.startedAt;
      openTo = call.endedAt;
    } else {
      openTo = Math.max(openTo, call.endedAt);
    }
  }
  return Number.isNaN(openFrom) ? total : total + (openTo - openFrom);
};

/** Calls in start order. */
export const inStartOrder = (calls: readonly BenchCall[]): BenchCall[] => [...calls].sort((left, right) => left.startedAt - right.startedAt);

type Operation = { Key?: { PK?: unknown }; Item?: { PK?: unknown } };

/** The partition keys a call touched (Key or Item, Keys of a BatchGet, a transaction's items, or a Query's :pk value). */
export const partitionsOf = (call: RecordedCall): string[] => {
  const input = call.input as Operation & {
    RequestItems?: Record<string, { Keys?: { PK?: unknown }[] }>;
    TransactItems?: Record<string, Operation>[];
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  if (input.Key) return [String(input.Key.PK)];
  if (input.Item) return [String(input.Item.PK)];
  if (input.TransactItems) {
    return input.TransactItems.flatMap((entry) => Object.values(entry).map((operation) => String((operation.Key ?? operation.Item)?.PK)));
  }
  if (input.RequestItems) return Object.values(input.RequestItems).flatMap((entry) => (entry.Keys ?? []).map((k) => String(k.PK)));
  const pk = input.ExpressionAttributeValues?.[':pk'];
  return pk === undefined ? [] : [String(pk)];
};

/**
 * Whether a call is part of the Area A guard rather than the route's business: the
 * authentication read (a BatchGetItem of only TOKEN# / APIKEY# items) or the rate limiter's
 * call on its RATE# item (its conditional UpdateItem, or the GetItem with which it confirms a
 * refusal on a view of the item it already had).
 */
export const isGuardCall = (call: RecordedCall): boolean => {
  const partitions = partitionsOf(call);
  if (call.command === 'BatchGetItemCommand') {
    return partitions.length > 0 && partitions.every((pk) => pk.startsWith(partitionPrefix.bearerToken) || pk.startsWith(partitionPrefix.apiKey));
  }
  // The rate limiter writes its item, or (refusing on a view it already had) reads it once.
  if (call.command === 'UpdateItemCommand' || call.command === 'GetItemCommand') {
    return partitions.length > 0 && partitions.every((pk) => pk.startsWith(partitionPrefix.rateLimit));
  }
  return false;
};

/** A short description of a call for reports: `GetItem SIM#5000001`. */
export const describeCall = (call: RecordedCall): string => {
  const name = call.command.replace(/Command$/, '');
  const partitions = [...new Set(partitionsOf(call).map((pk) => pk.replace(/#.*/, '#…')))];
  const index = (call.input as { IndexName?: string }).IndexName;
  return `${name}${index ? `(${index})` : ''} ${partitions.join(',')}`.trim();
};

/** Partitions of the list index (shared/sim-lists, issue #19) a list request may query: its fences, count pages and buckets. */
const listIndexPartitions = [
  partitionPrefix.simList,
  partitionPrefix.simListIdCounts,
  partitionPrefix.simListTimeCounts,
  partitionPrefix.simListJournal,
  partitionPrefix.simListIdBucket,
  partitionPrefix.simListTimeBucket,
];

/**
 * What a list request (A1) read beyond "the SIM read's guard calls, plus what its count and
 * offset need, plus the page": every business call must be a Query of the list index (its
 * fences, count pages and buckets, issue #19) or of a `SCOPE#` partition (a group of an earlier
 * version before rebuild-list-index; small sim_scope items, projected), the GSI1 lookup of a
 * `customer` name, or the one read of the page's SIMs (with the group's directory beside them),
 * which must read exactly the `results` returned. Returns the problems found (none: the list
 * read only what it needed).
 */
export const listReadProblems = (calls: readonly BenchCall[], results: number): string[] => {
  const problems: string[] = [];
  let pageReads = 0;
  let simKeys = 0;
  let simItems = 0;
  for (const call of calls) {
    if (isGuardCall(call)) continue;
    const input = call.input as { IndexName?: string; ProjectionExpression?: string };
    const partitions = partitionsOf(call);
    if (call.command === 'QueryCommand') {
      if (input.IndexName === 'GSI1' && partitions.every((pk) => pk.startsWith(partitionPrefix.customerByName))) continue;
      if (!input.IndexName && partitions.every((pk) => pk.startsWith(partitionPrefix.simScope))) {
        if (!input.ProjectionExpression) problems.push('a scope Query without a projection');
        continue;
      }
      if (!input.IndexName && partitions.every((pk) => listIndexPartitions.some((prefix) => pk.startsWith(prefix)))) continue;
    }
    if (call.command === 'GetItemCommand' && partitions.every((pk) => pk.startsWith(partitionPrefix.groupDirectory))) continue;
    if ((call.command === 'BatchGetItemCommand' || call.command === 'GetItemCommand') && partitions.every((pk) => pk.startsWith(partitionPrefix.sim) || pk.startsWith(partitionPrefix.groupDirectory))) {
      pageReads += 1;
      simKeys += partitions.filter((pk) => pk.startsWith(partitionPrefix.sim)).length;
      simItems += call.simItemsRead;
      continue;
    }
    problems.push(`unexpected call ${describeCall(call)}`);
  }
  if (results > 0 && pageReads !== 1) problems.push(`${pageReads} reads of SIM items for one page`);
  if (simKeys !== results) problems.push(`${simKeys} SIM keys requested for ${results} results`);
  if (simItems !== results) problems.push(`${simItems} full SIM items read for ${results} results`);
  return problems;
};
