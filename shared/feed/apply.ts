import { recordMetric } from '../observability/metrics';
import { logger } from '../observability/logger';
import { applyBundleRecord, applyCustomerRecord, type EntityOutcome, type FeedTable } from './customer-records';
import { recordFeedBatch, type FeedBatch, type FeedRejection } from './journal';
import { feedLines, readFeedLine, type FeedRecord } from './records';
import { applySimRecords, type SimLine } from './sim-records';

/** One message of the feed: its body (JSON Lines), the number of its first line in its file, its id. */
export interface FeedMessage {
  body: string;
  firstLine: number;
  batchId: string;
}

/** A message that is no JSON Lines text at all (empty, or with a NUL): it goes to the dead-letter queue after its retries. */
export class UnreadableFeedMessage extends Error {
  override name = 'UnreadableFeedMessage';
}

/** Whether a message's body is JSON Lines text at all: not blank, and without a NUL (else UnreadableFeedMessage). */
export const isFeedText = (body: string): boolean => body.trim() !== '' && !body.includes('\u0000');

/**
 * Applies one message of the operator feed (issue #20): every line read (a line that is not
 * JSON, has an unknown type or breaks a field rule is refused alone), customers and bundles
 * first, in line order (SIM records may name them), then the SIM records (./sim-records.ts).
 * A refused line never stops the others. The counts and the refused lines are kept 14 days
 * (./journal.ts), logged and counted (EMF `FeedRecords` by outcome). Applying a message again (a
 * retry) changes nothing more: every record is decided by its source time.
 */
export const applyFeedMessage = async (table: FeedTable, message: FeedMessage, nowMs: number): Promise<FeedBatch> => {
  const outcomes = new Map<number, EntityOutcome>();
  const entities: { line: number; record: FeedRecord }[] = [];
  const sims: SimLine[] = [];
  const texts = new Map<number, string>();
  for (const { line, text } of feedLines(message.body, message.firstLine)) {
    texts.set(line, text);
    const read = readFeedLine(text);
    if ('reason' in read) outcomes.set(line, { outcome: 'rejected', reason: read.reason });
    else if (read.record.type === 'customer' || read.record.type === 'data_bundle') entities.push({ line, record: read.record });
    else sims.push({ line, record: read.record });
  }
  for (const { line, record } of entities) {
    outcomes.set(line, record.type === 'customer' ? await applyCustomerRecord(table, record) : await applyBundleRecord(table, record as never));
  }
  for (const [line, outcome] of await applySimRecords(table, sims, nowMs)) outcomes.set(line, outcome);

  const receivedAt = new Date(nowMs).toISOString();
  const rejections: FeedRejection[] = [...outcomes]
    .flatMap(([line, outcome]) => (outcome.outcome === 'rejected' ? [{ batch_id: message.batchId, received_at: receivedAt, line, reason: outcome.reason, text: texts.get(line) ?? '' }] : []))
    .sort((left, right) => left.line - right.line);
  const count = (wanted: EntityOutcome['outcome']) => [...outcomes.values()].filter((outcome) => outcome.outcome === wanted).length;
  const batch: FeedBatch = {
    batch_id: message.batchId,
    received_at: receivedAt,
    first_line: message.firstLine,
    lines: outcomes.size,
    applied: count('applied'),
    unchanged: count('unchanged'),
    stale: count('stale'),
    rejected: count('rejected'),
  };
  await recordFeedBatch(table, batch, rejections);
  for (const outcome of ['applied', 'unchanged', 'stale', 'rejected'] as const) {
    if (batch[outcome] > 0) recordMetric('FeedRecords', { outcome }, batch[outcome]);
  }
  for (const rejection of rejections.slice(0, 20)) logger.warn('feed line refused', { batch_id: rejection.batch_id, line: rejection.line, reason: rejection.reason });
  logger.info('feed message applied', { ...batch });
  return batch;
};
