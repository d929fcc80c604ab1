import { recordMetric } from '../observability/metrics';
import { logger } from '../observability/logger';
import { errorReason, isOutage } from '../errors/outage';
import { applyBundleRecord, applyCustomerRecord, type FeedTable } from './customer-records';
import { recordFeedBatch, type FeedBatch, type FeedRejection } from './journal';
import { feedLines, readFeedLine, type FeedRecordOf } from './records';
import { applySimRun, type ReleasedLine, type SimLine, type SimLineOutcome } from './sim-records';

/** One message of the feed: its body (JSON Lines), the number of its first line in its file, its id. */
export interface FeedMessage {
  body: string;
  firstLine: number;
  batchId: string;
}

/** A message that holds no line at all (blank): it goes to the dead-letter queue after its retries. */
export class UnreadableFeedMessage extends Error {
  override name = 'UnreadableFeedMessage';
}

/**
 * Whether a message's body holds a line at all (else UnreadableFeedMessage). Whatever a line
 * holds (a NUL, binary garbage) refuses that line alone: it is not JSON.
 */
export const isFeedText = (body: string): boolean => body.trim() !== '';

/** A stretch of a message applied as one: a customer or bundle line, or a run of SIM lines in a row. */
type Segment = { kind: 'entity'; line: number; record: FeedRecordOf<'customer'> | FeedRecordOf<'data_bundle'> } | { kind: 'sims'; lines: SimLine[] };

/**
 * Applies one message of the operator feed (issues #20 and #31): every line read (a line that is
 * not JSON, has an unknown type or breaks a field rule is refused alone), then applied in line
 * order: a customer or bundle line on its own, a run of SIM lines in a row together
 * (./sim-records.ts: the lines of each SIM in order, different SIMs at once). A line that cannot
 * be applied for any reason but an outage (./errors/outage.ts) is refused alone with its reason,
 * and the message is acknowledged: only an outage (the table throttled or unavailable, a
 * timeout) fails the message, which comes back. A line for a SIM the service has not seen yet
 * is held (./held.ts). The counts, the refused lines and the held ones are kept 14 days
 * (./journal.ts), logged and counted (EMF `FeedRecords` by outcome). Applying a message again (a
 * retry) changes nothing more: every record is decided by its source time.
 */
export const applyFeedMessage = async (table: FeedTable, message: FeedMessage, nowMs: number): Promise<FeedBatch> => {
  const receivedAt = new Date(nowMs).toISOString();
  const context = { batchId: message.batchId, receivedAt, nowMs };
  const outcomes = new Map<number, SimLineOutcome>();
  const released: ReleasedLine[] = [];
  const texts = new Map<number, string>();
  const segments: Segment[] = [];
  for (const { line, text } of feedLines(message.body, message.firstLine)) {
    texts.set(line, text);
    const read = readFeedLine(text, nowMs);
    if ('reason' in read) outcomes.set(line, { outcome: 'rejected', reason: read.reason });
    else if (read.record.type === 'customer' || read.record.type === 'data_bundle') segments.push({ kind: 'entity', line, record: read.record });
    else {
      const last = segments.at(-1);
      const simLine = { line, record: read.record, text };
      if (last?.kind === 'sims') last.lines.push(simLine);
      else segments.push({ kind: 'sims', lines: [simLine] });
    }
  }
  for (const segment of segments) {
    if (segment.kind === 'entity') {
      outcomes.set(segment.line, await applyEntityLine(table, segment.record));
      continue;
    }
    const result = await applySimLines(table, segment.lines, context);
    for (const [line, outcome] of result.outcomes) outcomes.set(line, outcome);
    released.push(...result.released);
  }

  const rejections: FeedRejection[] = [
    ...[...outcomes].flatMap(([line, outcome]) => (outcome.outcome === 'rejected' ? [{ batch_id: message.batchId, received_at: receivedAt, line, reason: outcome.reason, text: texts.get(line) ?? '' }] : [])),
    ...released.flatMap((entry) =>
      entry.outcome.outcome === 'rejected' ? [{ batch_id: entry.batchId, received_at: receivedAt, line: entry.line, reason: `held, then refused when its SIM arrived: ${entry.outcome.reason}`, text: entry.text }] : [],
    ),
  ].sort((left, right) => left.batch_id.localeCompare(right.batch_id) || left.line - right.line);
  const count = (wanted: SimLineOutcome['outcome']) => [...outcomes.values()].filter((outcome) => outcome.outcome === wanted).length;
  const batch: FeedBatch = {
    batch_id: message.batchId,
    received_at: receivedAt,
    first_line: message.firstLine,
    lines: outcomes.size,
    applied: count('applied'),
    unchanged: count('unchanged'),
    stale: count('stale'),
    rejected: count('rejected'),
    held: count('held'),
    released: released.length,
  };
  await recordFeedBatch(table, batch, rejections);
  for (const outcome of ['applied', 'unchanged', 'stale', 'rejected', 'held', 'released'] as const) {
    if (batch[outcome] > 0) recordMetric('FeedRecords', { outcome }, batch[outcome]);
  }
  for (const rejection of rejections.slice(0, 20)) logger.warn('feed line refused', { batch_id: rejection.batch_id, line: rejection.line, reason: rejection.reason });
  logger.info('feed message applied', { ...batch });
  return batch;
};

/** A customer or bundle line: its outcome, or refused with the reason it failed (an outage fails the message). */
const applyEntityLine = async (table: FeedTable, record: FeedRecordOf<'customer'> | FeedRecordOf<'data_bundle'>): Promise<SimLineOutcome> => {
  try {
    return record.type === 'customer' ? await applyCustomerRecord(table, record) : await applyBundleRecord(table, record);
  } catch (error) {
    if (isOutage(error)) throw error;
    return { outcome: 'rejected', reason: `could not be applied: ${errorReason(error)}` };
  }
};

/**
 * A run of SIM lines; when the run as a whole fails for a reason that is not an outage (a read
 * of all its lines refused because of one of them), each line is applied alone, in order, so
 * that the line at fault is refused alone.
 */
const applySimLines = async (table: FeedTable, lines: SimLine[], context: Parameters<typeof applySimRun>[2]): ReturnType<typeof applySimRun> => {
  try {
    return await applySimRun(table, lines, context);
  } catch (error) {
    if (isOutage(error)) throw error;
    if (lines.length === 1) return { outcomes: new Map([[lines[0]!.line, { outcome: 'rejected', reason: `could not be applied: ${errorReason(error)}` }]]), released: [] };
    const outcomes = new Map<number, SimLineOutcome>();
    const released: ReleasedLine[] = [];
    for (const line of lines) {
      const result = await applySimLines(table, [line], context);
      for (const [number, outcome] of result.outcomes) outcomes.set(number, outcome);
      released.push(...result.released);
    }
    return { outcomes, released };
  }
};
