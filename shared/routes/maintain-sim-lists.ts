import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { FunctionConfig } from '../config/function-config';
import { documentClient } from '../db/client';
import { errorReason, isOutage } from '../errors/outage';
import { logKeys, withInvocation } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import { sqsClient } from '../queues/sqs-client';
import { setAsideStreamRecord, sqsStreamFailureQueue, type StreamFailureQueue } from '../queues/stream-failures';
import { maintainSimLists, type MaintainResult, type SimChangeRecord } from '../sim-lists/maintain';
import { simChangeOf } from '../sim-lists/sim-change';

/** What the list index consumer needs: the table, and its failure queue. */
export interface ListConsumerDeps {
  db: DynamoDBDocumentClient;
  tableName: string;
  /** Where a record it cannot process is set aside (shared/queues/stream-failures.ts). */
  failures: StreamFailureQueue;
}

/** The deps of the maintain-sim-lists function, from its configuration (read once at init). */
export const listConsumerDeps = (config: FunctionConfig<'maintain-sim-lists'>): ListConsumerDeps => ({
  db: documentClient(config),
  tableName: config.tableName,
  failures: sqsStreamFailureQueue(sqsClient(config), config.failureQueueUrl),
});

/** The name the consumer goes by in its lines and set-aside messages (shared/topology/streams.ts). */
const consumerName = 'maintain-sim-lists';

/** One record of the batch with the SIM change it stands for. */
interface ListRecord {
  record: DynamoDBRecord;
  change: SimChangeRecord;
}

/**
 * How a part of the batch ended: applied (records set aside included; with what it wrote when it
 * was applied in one go), or not, to be read again from its first record (an outage, no time left).
 */
type PartOutcome = { applied: true; result?: MaintainResult } | { applied: false; from: DynamoDBRecord };

/**
 * Consumer of the table's stream (issue #19): keeps the SIM list index exact
 * (shared/sim-lists/maintain.ts) for every SIM put, changed or removed, whoever wrote it. The
 * batch is applied as one unit (the counts of a bucket are written once per batch), and a
 * record never holds up the others (issue #31, point 5):
 * - when the batch fails for a reason that is not an outage, the record(s) that fail it are
 *   found by bisection inside the invocation: each half is applied again, in stream order, down
 *   to single records. Every step of maintainSimLists may run again with the same outcome
 *   (entries put and deleted by key, buckets counted again rather than incremented, pool shards
 *   summed again), so a part applied twice is applied once. A record that fails alone is set
 *   aside at once with the reason, on the consumer's failure queue
 *   (shared/queues/stream-failures.ts), and the records before and after it are applied. The
 *   search stops two thirds into the function's time: what it has not reached is reported as
 *   failed from its first record and read again by the next invocation (the records before it
 *   are applied), so many poisoned records in one batch cost invocations, not a timeout.
 * - an outage (shared/errors/outage.ts) reports the batch as failed from the first record of
 *   the part it met (ReportBatchItemFailures), so the stream is read again from there.
 *
 * What the index loses for a set-aside record: its change is not applied (in a rare case, a
 * failure after the batch's entry writes, only in part: an entry of the new image put, its
 * bucket not counted again). The SIM stays listed as the index last saw it: its old status,
 * time and owner, the counts and its pool share as before. Its next records carry the malformed
 * image as their old image and are set aside too, until the SIM is repaired; every other
 * record's change is applied. The operator fixes (or removes) the item, then runs `npm run
 * admin -- replay-stream-record <message file>` on the SIM's earliest set-aside record: it
 * applies the one change from that record's old image, what the index last saw, to the SIM as it
 * is now (shared/sim-lists/relist.ts). `rebuild-list-index` is no repair: it leaves a group
 * already on the index alone (docs/operations.md, "Stream records set aside").
 */
export const maintainSimListsConsumer =
  (deps: ListConsumerDeps) =>
  (event: DynamoDBStreamEvent, context: Context): Promise<DynamoDBBatchResponse> =>
    withInvocation(context, { consumer: consumerName }, async () => {
      if (logKeys().cold_start === true) recordMetric('ColdStart', { function_name: context.functionName });
      const started = Date.now();
      const records: ListRecord[] = [];
      for (const record of event.Records) {
        let change: SimChangeRecord;
        try {
          change = simChangeOf(record);
        } catch (error) {
          // An image that cannot even be read (the SDK refuses an attribute value).
          if (!(await setAsideStreamRecord(deps.failures, consumerName, record, error))) return failedFrom(record);
          continue;
        }
        if (change.old || change.new) records.push({ record, change });
      }
      if (records.length === 0) return { batchItemFailures: [] };

      // Bisection stops a third of the timeout before its end: the records not applied by then
      // are read again by the next invocation (everything before them is applied), never cut
      // off by the timeout, which would make the whole batch fail.
      const deadline = started + (context.getRemainingTimeInMillis() * 2) / 3;
      const outcome = await applyInOrder(deps, records, true, deadline);
      if (!outcome.applied) return failedFrom(outcome.from);
      logger.info('sim lists maintained', { records: records.length, ...outcome.result, duration_ms: Date.now() - started });
      return { batchItemFailures: [] };
    });

/** The batch reported as failed from `record` on: read again from there. */
const failedFrom = (record: DynamoDBRecord): DynamoDBBatchResponse => ({ batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] });

/**
 * Applies `part` (records in stream order) as one unit; when it fails for a reason that is not
 * an outage, applies its two halves in turn (first the earlier records, then the later ones),
 * down to single records, and sets aside a single record that still fails.
 */
const applyInOrder = async (deps: ListConsumerDeps, part: readonly ListRecord[], whole: boolean, deadline: number): Promise<PartOutcome> => {
  if (!whole && Date.now() > deadline) {
    logger.warn('sim list maintenance: out of time while finding the record that fails the batch; the rest is read again', { records: part.length });
    return { applied: false, from: part[0]!.record };
  }
  try {
    return { applied: true, result: await maintainSimLists(deps, part.map((entry) => entry.change)) };
  } catch (error) {
    if (isOutage(error)) {
      logger.error('sim list maintenance failed (outage); the batch is read again from the first record of this part', {
        records: part.length,
        error: errorReason(error),
      });
      return { applied: false, from: part[0]!.record };
    }
    if (part.length === 1) {
      const [only] = part;
      return (await setAsideStreamRecord(deps.failures, consumerName, only!.record, error)) ? { applied: true } : { applied: false, from: only!.record };
    }
    if (whole) logger.warn('sim list maintenance failed; finding the record that fails it', { records: part.length, error: errorReason(error) });
    const middle = Math.ceil(part.length / 2);
    for (const half of [part.slice(0, middle), part.slice(middle)]) {
      const outcome = await applyInOrder(deps, half, false, deadline);
      if (!outcome.applied) return outcome;
    }
    return { applied: true };
  }
};
