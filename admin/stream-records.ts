import { readFileSync } from 'node:fs';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { AdminError } from '../shared/auth/admin';
import { errorReason } from '../shared/errors/outage';
import { simImageOf } from '../shared/db/stream-images';
import type { SetAsideStreamRecord } from '../shared/queues/stream-failures';
import { relistSim } from '../shared/sim-lists/relist';
import { sqsDeliveryQueue } from '../shared/webhooks/delivery-queue';
import { batchPublisher } from '../shared/webhooks/publish';
import { UsageError, type AdminCommand } from './command';
import { sqsClientOf } from './sqs-client';

/** The admin commands of the table-stream consumers' failure queues (issue #31, docs/operations.md). */
export const streamRecordCommands: Record<string, AdminCommand> = {};

/** The set-aside record a file holds: a failure queue message's body, as `aws sqs receive-message` prints it. */
const readSetAside = (file: string): SetAsideStreamRecord => {
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new AdminError(`${file} is not a failure queue message (JSON): ${errorReason(error)}`);
  }
  const message = body as Partial<SetAsideStreamRecord> & { DDBStreamBatchInfo?: unknown };
  if (message?.DDBStreamBatchInfo) {
    throw new AdminError(
      `${file} holds the positions of records whose retries ran out, not a record: read the records from the stream (docs/operations.md, "Stream records set aside")`,
    );
  }
  if (message?.kind !== 'stream-record-set-aside') throw new AdminError(`${file} is not a record a stream consumer set aside`);
  if (!message.record) throw new AdminError(`${file} holds no record (${message.record_omitted ?? 'left out'}): read it from the stream at sequence number ${message.sequence_number}`);
  return message as SetAsideStreamRecord;
};

/**
 * `replay-stream-record FILE [--queue-url WEBHOOK_DELIVERIES_URL]`: replays one record a stream
 * consumer set aside (FILE: the failure queue message's body), once its cause is fixed:
 * - maintain-sim-lists: relists the SIM (shared/sim-lists/relist.ts) from the record's old image,
 *   what the index last saw of it, to the SIM item as it is now, so its lists and counts are
 *   exact again; replay the SIM's earliest set-aside record (a later one's old image is the
 *   malformed one);
 * - publish-lifecycle-events: makes the record's lifecycle events again and queues their
 *   delivery jobs on --queue-url (the same event ids: receivers that saw one already drop it).
 */
streamRecordCommands['replay-stream-record'] = async (deps, argument, options, io) => {
  if (!argument) throw new UsageError('replay-stream-record needs FILE (a failure queue message body)');
  const entry = readSetAside(argument);
  const record = entry.record!;
  // A record read from the stream by hand may come wrapped without the message's other fields.
  const keys = entry.keys ?? (record.dynamodb?.Keys ? unmarshall(record.dynamodb.Keys as Record<string, AttributeValue>) : {});
  if (entry.consumer === 'maintain-sim-lists') {
    const oldImage = record.dynamodb?.OldImage ? unmarshall(record.dynamodb.OldImage as Record<string, AttributeValue>) : undefined;
    const newImage = record.dynamodb?.NewImage ? unmarshall(record.dynamodb.NewImage as Record<string, AttributeValue>) : undefined;
    const simId = Number(oldImage?.id ?? newImage?.id);
    if (!Number.isSafeInteger(simId) || simId <= 0) throw new AdminError(`the record names no SIM id (keys ${JSON.stringify(keys)})`);
    let lastIndexed;
    try {
      lastIndexed = oldImage?.type === 'sim' ? simImageOf(oldImage) : undefined;
    } catch (error) {
      throw new AdminError(`the record's old image of SIM ${simId} is malformed too (${errorReason(error)}): replay the earliest record of this SIM that was set aside`);
    }
    try {
      const result = await relistSim(deps, simId, lastIndexed);
      io.out(
        `SIM ${simId} ${result.sim === 'listed' ? 'relisted' : 'removed from the lists'}: ${result.entriesPut} entries put, ${result.entriesDeleted} deleted, ${result.bucketsRecounted} buckets counted again`,
      );
    } catch (error) {
      throw new AdminError(`SIM ${simId} cannot be listed as it is (${errorReason(error)}): fix or remove its item first`);
    }
    return;
  }
  if (entry.consumer === 'publish-lifecycle-events') {
    if (!options.queueUrl) throw new UsageError('replaying a publish-lifecycle-events record needs --queue-url WEBHOOK_DELIVERIES_QUEUE_URL');
    const client = sqsClientOf(options, io);
    try {
      await batchPublisher({ ...deps, queue: sqsDeliveryQueue(client, options.queueUrl) })(record);
    } catch (error) {
      throw new AdminError(`the record's events cannot be made (${errorReason(error)}): fix the cause first; a malformed item makes none`);
    } finally {
      client.destroy();
    }
    io.out(`Queued the lifecycle events of stream record ${record.eventID ?? entry.event_id} again (${JSON.stringify(keys)})`);
    return;
  }
  throw new AdminError(`records of the ${entry.consumer} consumer cannot be replayed by this command`);
};
