import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** One DynamoDB call as the counter saw it. */
export interface RecordedCall {
  /** The operation, e.g. `BatchGetItemCommand`, `UpdateItemCommand`, `QueryCommand`. */
  command: string;
  /** The command's input as sent (after the document client's translation). */
  input: Record<string, unknown>;
  /** High-resolution start and end times (ms, performance.now()). */
  startedAt: number;
  endedAt: number;
  /** Capacity units the call consumed, as DynamoDB reported them (only when counted with `capacity`). */
  capacityUnits?: number;
}

/**
 * The read units DynamoDB bills a single-partition read call (GetItem, Query): what it reported,
 * but at least the minimum a read request costs even when it finds nothing (0.5 eventually
 * consistent, 1 strongly consistent). DynamoDB Local reports 0 for a Query that finds nothing,
 * so its figures alone would make a request that queries more empty partitions look cheaper
 * than DynamoDB bills it. Other calls: as reported.
 */
export const billedReadUnits = (call: Pick<RecordedCall, 'command' | 'input' | 'capacityUnits'>): number => {
  const reported = call.capacityUnits ?? 0;
  if (!/^(GetItem|Get|Query)(Command)?$/.test(call.command)) return reported;
  return Math.max(reported, call.input.ConsistentRead === true ? 1 : 0.5);
};

/** The calls recorded on a client, with helpers to tell how many and in how many rounds. */
export interface CallCounter {
  readonly calls: RecordedCall[];
  /** Forgets what was recorded so far. */
  reset(): void;
  /** Sequential round trips: groups of calls in flight together (see roundTrips). */
  roundTrips(): number;
  /** Stops recording (the middleware stays on the client, inert). */
  detach(): void;
}

/**
 * The calls grouped by sequential round trip: calls are taken by start time and a call joins
 * the current round when it started before every call of that round had ended (calls sent
 * together with Promise.all), else it opens a new round (it had to wait for an answer).
 * Retries inside the SDK count as part of their call.
 */
export const callsByRound = (calls: readonly RecordedCall[]): RecordedCall[][] => {
  const rounds: RecordedCall[][] = [];
  let roundEndsFirst = -Infinity;
  for (const call of [...calls].sort((left, right) => left.startedAt - right.startedAt)) {
    if (call.startedAt >= roundEndsFirst) {
      rounds.push([]);
      roundEndsFirst = call.endedAt;
    } else {
      roundEndsFirst = Math.min(roundEndsFirst, call.endedAt);
    }
    rounds.at(-1)!.push(call);
  }
  return rounds;
};

/** The number of sequential round trips in a list of calls (callsByRound). */
export const roundTrips = (calls: readonly RecordedCall[]): number => callsByRound(calls).length;

/** The capacity units of a ConsumedCapacity answer (one object, or one per table for batch calls). */
const unitsOf = (consumed: unknown): number =>
  (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce((sum: number, entry) => sum + Number((entry as { CapacityUnits?: number }).CapacityUnits ?? 0), 0);

/**
 * Attaches a counting middleware to a DynamoDB (document) client, for tests and benchmarks
 * that assert how many calls a request makes and in how many sequential round trips. It
 * records every command sent through the client (and through any document client that
 * wraps the same base client, since they share one middleware stack). Never used in
 * production code paths.
 */
export const countCalls = (
  client: DynamoDBDocumentClient | { middlewareStack: DynamoDBDocumentClient['middlewareStack'] },
  options: { capacity?: boolean } = {},
): CallCounter => {
  const calls: RecordedCall[] = [];
  let active = true;
  const name = `callCounter-${Math.random().toString(36).slice(2)}`;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (!active) return next(args);
      // With `capacity`, every call asks DynamoDB for the units it consumed (DynamoDB Local answers it too).
      if (options.capacity) (args.input as Record<string, unknown>).ReturnConsumedCapacity = 'TOTAL';
      const startedAt = performance.now();
      let capacityUnits: number | undefined;
      try {
        const result = await next(args);
        if (options.capacity) capacityUnits = unitsOf((result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity);
        return result;
      } finally {
        calls.push({
          command: String((context as { commandName?: string }).commandName ?? 'unknown'),
          input: (args.input ?? {}) as Record<string, unknown>,
          startedAt,
          endedAt: performance.now(),
          ...(capacityUnits === undefined ? {} : { capacityUnits }),
        });
      }
    },
    { step: 'initialize', name },
  );
  return {
    calls,
    reset: () => {
      calls.length = 0;
    },
    roundTrips: () => roundTrips(calls),
    detach: () => {
      active = false;
    },
  };
};
