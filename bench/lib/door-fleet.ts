/**
 * Section 5's fleet through the doors users use (issue #31, point 8): its SIMs sent, with the
 * runtime's stream consumers running, through the SIM write path, the seed, or the operator
 * feed, in ascending id order, in an order unrelated to the ids, or in bursts, so that the list
 * index is the one the `maintain-sim-lists` consumer keeps for a real fleet (the bulk builder's
 * is cut in 500s from the ids known in advance).
 *
 * - `write`: shared/sims/sim-writes.ts putSims, 100 SIMs a call, 4 calls at once: what the seed's
 *   `stream` mode, the admin CLI and the console write through.
 * - `seed`: local/seed/load.ts loadSeedDocument with `listIndex: 'stream'` (`npm run seed` onto
 *   a running table), a document of 1,000 SIMs at a time, 4 at once.
 * - `feed`: `sim` records through the operator-feed queue, applied by the runtime's consumer.
 *   Messages of 200 lines (some 45 KB, under the senders' 60 KiB), each one SQS message: before
 *   issue #31 a message of more than 100 new SIMs failed whole and new SIMs came in some 26 a
 *   second; `npm run bench -- --scale-door=feed` is the switch.
 *
 * Orders: `ascending` ids in order; `random` a fixed permutation unrelated to the ids; `bursts`
 * blocks of 5,000 consecutive ids in a shuffled order, each block sent all at once (16 sends in
 * flight), so that the consumer takes them in full batches. A SIM of the write path and the seed
 * is updated at a time that follows its place in the sending (10,000 a second from the run's
 * start), so that `updated_after` finds the same run; the feed stamps its own clock.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { sendFeedMessages } from '../../local/feed-sender';
import type { LocalRuntime } from '../../local/runtime-types';
import { loadSeedDocument } from '../../local/seed/load';
import { key, partition, sortKeyPrefix } from '../../shared/db/keys';
import type { FeedMessageDraft } from '../../shared/feed/messages';
import { countOf, prefixesFor } from '../../shared/sim-lists/layout';
import { readList, readListDirectory } from '../../shared/sim-lists/read-list';
import { putSims } from '../../shared/sims/sim-writes';
import { concurrencyLimit } from '../../shared/async/limit';
import { sleep } from '../../shared/time/sleep';
import { writeUnits } from '../sections/scale-writes';
import type { CallRecorder } from './call-recorder';
import { scaleCustomers, seedSimOf, simOf, updateTimeOf, type FleetOrder, type ScaleFleet } from './scale-fleet';

/** SIMs a send carries: a putSims call, a seed document, a feed message. */
const sendSize = { write: 100, seed: 1_000, feed: 200 } as const;
/** Consecutive ids a burst sends at once. */
const burstSize = 5_000;
/** Sends in flight at once (in a burst: `burstSends`). */
const parallelSends = 4;
const burstSends = 16;
/** A multiplier prime to every fleet size used (100,000, a million, 40,000): rank r sends SIM (r * it) mod n. */
const randomMultiplier = 7_919;

/** How the fleet came in, for RESULTS.md. */
export interface DoorBuild {
  door: ScaleFleet['door'];
  order: FleetOrder;
  /** From the first send until every SIM was sent (the feed: its messages queued). */
  sendSeconds: number;
  /** From the first send until the list index counted every SIM and no split was moving. */
  seconds: number;
  simsPerSecond: number;
  /** The group's own list in id order: its buckets and the SIMs of the largest and the median one. */
  idBuckets: { count: number; largest: number; median: number };
  /** Items and records of the group's count journal once built. */
  journalItems: number;
  /**
   * Write units the stream consumers wrote for the list index while the fleet came in, per SIM,
   * by part (entries, moves of split buckets' entries included; count journal; count pages;
   * fences); what the door itself wrote (the SIM items, position counters) is not in it.
   */
  indexWriteUnits?: { perSim: number; parts: Record<string, number> };
}

/** The parts of the list index the consumers write. */
const indexParts = new Set(['entries', 'count journal', 'count pages', 'fences']);

/** The sends of a fleet: SIM indexes, in the order they go, cut in sends of `size`; for bursts, the bursts. */
export const sendsOf = (sims: number, order: FleetOrder, size: number): number[][][] => {
  const cut = (indexes: number[]) => Array.from({ length: Math.ceil(indexes.length / size) }, (_, send) => indexes.slice(send * size, (send + 1) * size));
  if (order === 'ascending') return [cut(Array.from({ length: sims }, (_, index) => index))];
  if (order === 'random') return [cut(Array.from({ length: sims }, (_, rank) => Number((BigInt(rank) * BigInt(randomMultiplier)) % BigInt(sims))))];
  const bursts = Math.ceil(sims / burstSize);
  const shuffled = Array.from({ length: bursts }, (_, burst) => burst);
  let seed = 31;
  for (let index = bursts - 1; index > 0; index -= 1) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    const other = seed % (index + 1);
    [shuffled[index], shuffled[other]] = [shuffled[other]!, shuffled[index]!];
  }
  return shuffled.map((burst) => cut(Array.from({ length: Math.min(burstSize, sims - burst * burstSize) }, (_, index) => burst * burstSize + index)));
};

/** The fleet's customers in the seed document's vocabulary. */
const seedCustomers = () => scaleCustomers.map((customer) => ({ ...customer, sms_enabled: true }));

/** The `sim` feed line of SIM `index` (a new SIM: customer, status and connection status). */
const feedLine = (fleet: ScaleFleet, index: number, sourceTime: string): string => {
  const sim = seedSimOf(fleet, index, 0);
  return JSON.stringify({
    type: 'sim',
    source_time: sourceTime,
    id: sim.id,
    iccid: sim.iccid,
    msisdn: sim.msisdn,
    customer: sim.customer,
    status: sim.status,
    connection_status: sim.connection_status,
    tariff_name: sim.tariff_name,
    base_cost: sim.base_cost,
  });
};

/** The group's own list in id order: bucket sizes from its counts (journal laid over). */
const idBucketFigures = async (table: { db: DynamoDBDocumentClient; tableName: string }, fleet: ScaleFleet): Promise<DoorBuild['idBuckets']> => {
  const directory = await readListDirectory(table, { groupId: fleet.groupId, customerId: fleet.groupId, direct: false, page: 1, pageSize: 1 });
  const sizes = directory.kind === 'id' ? directory.buckets.map((bucket) => countOf(bucket, prefixesFor({ direct: false }))).sort((left, right) => left - right) : [];
  return { count: sizes.length, largest: sizes.at(-1) ?? 0, median: sizes[Math.floor(sizes.length / 2)] ?? 0 };
};

/**
 * Sends the fleet's SIMs through its door in its order, then waits until the list index counts
 * every one of them (in id order and in order of update) and no split is moving. For the feed,
 * the fleet's run becomes the time the SIMs were created in.
 */
export const buildThroughDoor = async (
  runtime: Pick<LocalRuntime, 'queues' | 'sqsEndpoint' | 'env'>,
  target: { client: DynamoDBClient; tableName: string },
  fleet: ScaleFleet,
  log: (line: string) => void,
  /** The handlers' calls (the consumers' among them): their write units are summed as they come, and the recorder emptied. */
  recorder?: CallRecorder,
): Promise<DoorBuild> => {
  const door = fleet.door;
  if (door === 'bulk') throw new Error('a fleet built in bulk comes through no door');
  const order = fleet.order ?? 'random';
  const db = DynamoDBDocumentClient.from(target.client, { marshallOptions: { removeUndefinedValues: true } });
  const table = { db, tableName: target.tableName };
  const started = Date.now();
  const indexUnits: Record<string, number> = {};
  const tally = () => {
    if (!recorder) return;
    const calls = recorder.calls.splice(0, recorder.calls.length);
    for (const [part, units] of Object.entries(writeUnits(calls).parts)) if (indexParts.has(part)) indexUnits[part] = (indexUnits[part] ?? 0) + units;
  };
  recorder?.reset();
  const tallying = setInterval(tally, 2_000);
  const bursts = sendsOf(fleet.sims, order, sendSize[door]);
  log(`scale: ${fleet.sims} SIMs through ${door}, ${order}: ${bursts.flat().length} sends`);
  let rank = 0;
  let sent = 0;
  const sqs = door === 'feed' ? new SQSClient({ endpoint: runtime.sqsEndpoint, region: runtime.env.AWS_REGION, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }) : undefined;
  try {
    for (const burst of bursts) {
      const limit = concurrencyLimit(order === 'bursts' ? burstSends : parallelSends);
      await Promise.all(
        burst.map((send) => {
          const first = rank;
          rank += send.length;
          return limit(async () => {
            if (door === 'write') {
              await putSims(table, send.map((index, offset) => simOf(fleet, index, updateTimeOf(fleet, first + offset))), Date.now());
            } else if (door === 'seed') {
              const document = { customers: seedCustomers(), sims: send.map((index, offset) => seedSimOf(fleet, index, updateTimeOf(fleet, first + offset))) };
              await loadSeedDocument(document, target, { listIndex: 'stream' });
            } else {
              const body = send.map((index) => feedLine(fleet, index, new Date().toISOString())).join('\n');
              const draft: FeedMessageDraft = { firstLine: first + 1, body, lines: send.length, bytes: Buffer.byteLength(body) };
              await sendFeedMessages(sqs!, runtime.queues['operator-feed'].url, [draft]);
            }
            sent += send.length;
            if (Math.floor(sent / 10_000) !== Math.floor((sent - send.length) / 10_000)) log(`scale: ${sent} SIMs sent through ${door}`);
          });
        }),
      );
    }
  } finally {
    sqs?.destroy();
  }
  // Written (the feed: created), then counted by the index in both orders, and no split moving.
  const sendSeconds = (Date.now() - started) / 1000;
  const countNow = async (updatedAfter?: number) =>
    (await readList(table, { groupId: fleet.groupId, customerId: fleet.groupId, direct: false, page: 1, pageSize: 1, ...(updatedAfter === undefined ? {} : { updatedAfter }) }))?.count ?? 0;
  let lastLog = 0;
  for (;;) {
    const [byId, byTime, meta] = await Promise.all([
      countNow(),
      countNow(fleet.runStart - 86_400_000),
      db.send(new GetCommand({ TableName: target.tableName, Key: key.simListMeta(fleet.groupId), ConsistentRead: true })),
    ]);
    if (byId === fleet.sims && byTime === fleet.sims && meta.Item?.moving === undefined) break;
    if (Date.now() - lastLog > 30_000) {
      lastLog = Date.now();
      log(`scale: the list index counts ${byId} of ${fleet.sims} SIMs by id, ${byTime} by update${meta.Item?.moving ? ', a split moving' : ''}`);
    }
    await sleep(2_000);
  }
  const seconds = (Date.now() - started) / 1000;
  clearInterval(tallying);
  if (recorder) await recorder.settle(1_500, 120_000);
  tally();
  if (door === 'feed') {
    // The feed stamps its own clock: the run is the time the SIMs came in.
    fleet.runStart = started;
    fleet.runEnd = Date.now();
  }
  const journal = await db.send(
    new QueryCommand({
      TableName: target.tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :appends)',
      ExpressionAttributeValues: { ':pk': partition.simListJournal(fleet.groupId), ':appends': sortKeyPrefix.simListJournal },
      Select: 'COUNT',
    }),
  );
  const build: DoorBuild = {
    door,
    order,
    sendSeconds: Math.round(sendSeconds),
    seconds: Math.round(seconds),
    simsPerSecond: Math.round(fleet.sims / seconds),
    idBuckets: await idBucketFigures(table, fleet),
    journalItems: journal.Count ?? 0,
    ...(recorder
      ? {
          indexWriteUnits: {
            perSim: Math.round((Object.values(indexUnits).reduce((sum, units) => sum + units, 0) / fleet.sims) * 100) / 100,
            parts: Object.fromEntries(Object.entries(indexUnits).map(([part, units]) => [part, Math.round((units / fleet.sims) * 100) / 100])),
          },
        }
      : {}),
  };
  log(`scale: built through ${door} (${order}) in ${build.seconds} s: ${JSON.stringify(build.idBuckets)}, journal ${build.journalItems} items`);
  return build;
};
