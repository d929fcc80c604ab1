/**
 * Section 7, the operator feed (issue #20, point 7): 100,000 in-order usage records (one per
 * SIM of a fleet, in id order, each changing the SIM's figures) through the feed's consumer
 * (apply-operator-feed's handler, invoked with SQS events of five messages of whole lines as the
 * event source mapping would), then the same write requests sent directly to DynamoDB Local in
 * the same run: the consumer's own conditional UpdateItem of each record (fastWriteCommand,
 * with a later source time and other figures, so that its condition holds), as many per record
 * as the consumer's write requests per record, in the same groups at once. Reported: records per second both ways and their ratio (target ≥ 0.6), write
 * units and requests per record, and how much the process's memory grew over the consumer's run
 * (target < 50 MB, after a garbage collection at both ends). The table has no stream: the list
 * index's and the pool's maintenance cost is section 5's (write units per usage change).
 */
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BatchGetCommand, BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, DeleteQueueCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createTable } from '../../local/create-table';
import type { SimItem } from '../../shared/db/items';
import { gsi1, key } from '../../shared/db/keys';
import { applyOperatorFeedConsumer } from '../../shared/routes/apply-operator-feed';
import { feedMessageDrafts } from '../../shared/feed/messages';
import { countRequests } from '../lib/count-requests';
import { runMeasuredChild } from '../lib/measured-child';
import { applyThroughConsumer } from '../lib/feed-consumer';
import { simIccidItem } from '../../shared/sims/sim-writes';
import { fastWriteCommand, type SourcedChange } from '../../shared/sims/sourced-writes';
import { dayOf, formatPosition } from '../../shared/sim-lists/layout';
import type { SectionContext } from '../lib/context';
import { round } from '../lib/stats';

/** What the section measured. */
export interface FeedBenchResult {
  records: number;
  messages: number;
  invocations: number;
  consumer: {
    seconds: number;
    recordsPerSecond: number;
    writeRequestsPerRecord: number;
    writeUnitsPerRecord: number;
    readUnitsPerRecord: number;
    requestsPerRecord: Record<string, number>;
    outcomes: Record<string, number>;
  };
  direct: { seconds: number; requests: number; requestsPerSecond: number; recordsPerSecond: number };
  ratio: number;
  memory: { rssGrowthMb: number; heapGrowthMb: number; rssBeforeMb: number; rssAfterMb: number };
}

/** Options of the section. */
export interface FeedBenchOptions {
  dynamodbEndpoint: string;
  region: string;
  records: number;
}

const mb = (bytes: number) => round(bytes / 1048576, 1);

/** A garbage collection, when the flag can be set at run time (V8 allows it). */
const collectGarbage = (() => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  return () => {
    gc?.();
    gc?.();
  };
})();

const groupId = 'feedbench';
const customers = Array.from({ length: 10 }, (_, index) => `feedbench-${index}`);
const month = new Date().toISOString().slice(0, 7);
const iccidOf = (index: number) => `8999${String(index).padStart(12, '0')}`;

/** The fleet's SIM of an index (usage 0.00 for this month), owned by one of ten sub-customers. */
const simOf = (index: number, nowMs: number): SimItem => {
  const owner = customers[index % customers.length]!;
  return {
    ...key.sim(index + 1),
    ...gsi1.simByIccid(iccidOf(index)),
    type: 'sim',
    id: index + 1,
    iccid: iccidOf(index),
    msisdn: null,
    status: 'active',
    connection_status: 'active',
    customer_id: owner,
    customer_name: owner,
    customer_path: [groupId, owner],
    tariff_name: 'IoT 1GB',
    data_used_mb: '0.00',
    data_overage_mb: '0.00',
    base_cost: '5.00',
    overage_cost: '0.00',
    data_bundle: null,
    updated_at: new Date(nowMs).toISOString().replace('Z', '+00:00'),
    updated_at_ms: nowMs,
    usage_month: month,
  };
};

/** Writes the fleet's SIM and ICCID items (25 a call, 16 calls at once). */
const writeFleet = async (db: DynamoDBDocumentClient, tableName: string, count: number, nowMs: number): Promise<void> => {
  const calls: Record<string, unknown>[][] = [];
  let batch: Record<string, unknown>[] = [];
  for (let index = 0; index < count; index += 1) {
    const sim = simOf(index, nowMs);
    for (const item of [sim as unknown as Record<string, unknown>, simIccidItem(sim)]) {
      batch.push(item);
      if (batch.length === 25) {
        calls.push(batch);
        batch = [];
      }
    }
  }
  if (batch.length > 0) calls.push(batch);
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < calls.length) {
        let pending = calls[next++]!.map((Item) => ({ PutRequest: { Item } }));
        while (pending.length > 0) {
          const output = await db.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
          pending = (output.UnprocessedItems?.[tableName] ?? []) as typeof pending;
        }
      }
    }),
  );
};

/** The record of index `index`: the SIM's usage, later than the last, in id order. */
const usageLine = (index: number, baseMs: number): string =>
  JSON.stringify({
    type: 'usage',
    source_time: new Date(baseMs + index).toISOString(),
    iccid: iccidOf(index),
    month,
    data_used_mb: `${(index % 5000) + 1}.25`,
    data_overage_mb: '0.00',
    overage_cost: '0.00',
  });

function* numberedLines(count: number, baseMs: number): Generator<{ line: number; text: string }> {
  for (let index = 0; index < count; index += 1) yield { line: index + 1, text: usageLine(index, baseMs) };
}

/** Runs the section. */
export const runFeed = async (context: SectionContext, options: FeedBenchOptions): Promise<FeedBenchResult> => {
  const client = new DynamoDBClient({ endpoint: options.dynamodbEndpoint, region: options.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const loader = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  const tableName = `bench-feed-${Date.now()}`;
  const nowMs = Date.now();
  try {
    await createTable(client, tableName, { stream: false });
    context.log(`feed: writing ${options.records.toLocaleString('en-GB')} SIMs and their ICCID items`);
    await writeFleet(loader, tableName, options.records, nowMs);

    // The consumer, as apply-operator-feed's handler builds it, on a client of its own.
    const consumerClient = new DynamoDBClient({ endpoint: options.dynamodbEndpoint, region: options.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const consumerDb = DynamoDBDocumentClient.from(consumerClient, { marshallOptions: { removeUndefinedValues: true } });
    const counted = countRequests(consumerDb);
    const handler = applyOperatorFeedConsumer({ db: consumerDb, tableName, now: Date.now });
    const outcomes: Record<string, number> = {};
    const baseMs = Date.parse(`${month}-01T00:00:00Z`);

    collectGarbage();
    const before = process.memoryUsage();
    const started = performance.now();
    const groups: number[] = [];
    const { messages, invocations } = await applyThroughConsumer(handler, feedMessageDrafts(numberedLines(options.records, baseMs), () => {}), 'feed', (applied) => {
      groups.push(applied.lines);
      if (applied.invocations % 50 === 0) context.log(`feed: ${applied.messages} messages applied`);
    });
    const consumerSeconds = (performance.now() - started) / 1000;
    collectGarbage();
    const after = process.memoryUsage();
    // Every record applied: a sample of the SIMs across the fleet holds its record's figures.
    const sample = Array.from({ length: 100 }, (_, index) => Math.floor((index * options.records) / 100));
    const read = await loader.send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: sample.map((index) => key.sim(index + 1)) } } }));
    const wrong = (read.Responses?.[tableName] ?? []).filter((item) => item.data_used_mb !== `${((Number(item.id) - 1) % 5000) + 1}.25`);
    if (wrong.length > 0 || (read.Responses?.[tableName] ?? []).length !== sample.length) throw new Error(`the consumer left ${wrong.length} of 100 sampled SIMs without their record's figures`);
    outcomes.sampledAndApplied = sample.length;
    const writeRequests = Object.entries(counted.requests)
      .filter(([command]) => /^(Put|Update|Delete|BatchWrite|TransactWrite)/.test(command))
      .reduce((sum, [, count]) => sum + count, 0);
    const writeRequestsPerRecord = writeRequests / options.records;

    // The same number of write requests per record, sent directly, in the same groups at once.
    const directClient = new DynamoDBClient({ endpoint: options.dynamodbEndpoint, region: options.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const directDb = DynamoDBDocumentClient.from(directClient);
    const directRequests = Math.round(writeRequestsPerRecord * options.records);
    const directStarted = performance.now();
    let sent = 0;
    for (const size of groups) {
      const count = Math.min(Math.round(size * writeRequestsPerRecord), directRequests - sent);
      await Promise.all(
        Array.from({ length: count }, (_, offset) => {
          const index = (sent + offset) % options.records;
          const sim = simOf(index, nowMs);
          const change: SourcedChange = {
            simId: sim.id,
            iccid: sim.iccid,
            sourceMs: baseMs + options.records + sent + offset,
            fields: {},
            // A figure no earlier write of this SIM had (the condition wants one value different).
            usage: { month, data_used_mb: `${sent + offset + 100_000}.50`, data_overage_mb: '0.00', overage_cost: '0.00' },
            expectedOwner: sim,
          };
          const at = Date.now();
          const position = formatPosition(dayOf(at), sent + offset);
          return directDb.send(fastWriteCommand(tableName, change, at, { listed_at_ms: at, list_pos: { [groupId]: position, [sim.customer_id]: position } }));
        }),
      );
      sent += count;
    }
    const directSeconds = (performance.now() - directStarted) / 1000;
    consumerClient.destroy();
    directClient.destroy();

    const recordsPerSecond = options.records / consumerSeconds;
    const directRequestsPerSecond = sent / directSeconds;
    const directRecordsPerSecond = directRequestsPerSecond / writeRequestsPerRecord;
    const result: FeedBenchResult = {
      records: options.records,
      messages,
      invocations,
      consumer: {
        seconds: round(consumerSeconds, 1),
        recordsPerSecond: round(recordsPerSecond, 0),
        writeRequestsPerRecord: round(writeRequestsPerRecord, 3),
        writeUnitsPerRecord: round(counted.units.write / options.records, 2),
        readUnitsPerRecord: round(counted.units.read / options.records, 2),
        requestsPerRecord: Object.fromEntries(Object.entries(counted.requests).map(([command, count]) => [command, round(count / options.records, 3)])),
        outcomes,
      },
      direct: { seconds: round(directSeconds, 1), requests: sent, requestsPerSecond: round(directRequestsPerSecond, 0), recordsPerSecond: round(directRecordsPerSecond, 0) },
      ratio: round(recordsPerSecond / directRecordsPerSecond, 2),
      memory: {
        rssBeforeMb: mb(before.rss),
        rssAfterMb: mb(after.rss),
        rssGrowthMb: mb(after.rss - before.rss),
        heapGrowthMb: mb(after.heapUsed - before.heapUsed),
      },
    };
    context.targets.check({
      section: '7 feed',
      id: 'feed-rate-vs-direct',
      subject: `${options.records.toLocaleString('en-GB')} in-order usage records`,
      target: '≥ 0.6 × the same write requests sent directly',
      actual: `${result.ratio} × (${result.consumer.recordsPerSecond} records/s; direct ${result.direct.recordsPerSecond} records/s at ${result.consumer.writeRequestsPerRecord} writes a record)`,
      met: result.ratio >= 0.6,
      evidence: `consumer requests per record: ${JSON.stringify(result.consumer.requestsPerRecord)}`,
    });
    context.targets.check({
      section: '7 feed',
      id: 'feed-memory-growth',
      subject: 'apply-operator-feed over the run',
      target: '< 50 MB',
      actual: `${result.memory.rssGrowthMb} MB RSS (${result.memory.heapGrowthMb} MB heap)`,
      met: result.memory.rssGrowthMb < 50,
    });
    return result;
  } finally {
    loader.destroy();
  }
};

/** What the upload of a feed file measured. */
export interface FeedUploadResult {
  lines: number;
  megabytes: number;
  seconds: number;
  linesPerSecond: number;
  messages: number;
  /** Peak resident memory of the `admin feed` process (VmHWM). */
  peakRssMb: number;
  /** Lines found on the queue, and whether the messages' first lines cover the file without a gap. */
  linesQueued: number;
  contiguous: boolean;
}

/**
 * Issue #20, point 4: a file of a million lines through `npm run admin -- feed FILE --queue-url
 * URL` (its own process, as an operator runs it) to a queue of the local SQS emulator that no
 * consumer reads; then every message is received again and its lines counted, and the messages'
 * `first_line` attributes must cover the file without a gap or an overlap.
 */
export const runFeedUpload = async (context: SectionContext, options: { sqsEndpoint: string; region: string; lines: number; root: string }): Promise<FeedUploadResult> => {
  const sqs = new SQSClient({ endpoint: options.sqsEndpoint, region: options.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const folder = mkdtempSync(join(tmpdir(), 'bench-feed-file-'));
  const file = join(folder, 'usage.jsonl');
  try {
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `bench-feed-upload-${Date.now()}` }))).QueueUrl!;
    const out = createWriteStream(file);
    const baseMs = Date.parse(`${month}-01T00:00:00Z`);
    for (let index = 0; index < options.lines; index += 1) {
      if (!out.write(`${usageLine(index % 100_000, baseMs + index)}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const bytes = statSync(file).size;
    context.log(`feed: a file of ${options.lines.toLocaleString('en-GB')} lines (${mb(bytes)} MB) through admin feed`);

    const { code, output, seconds, peakRssMb: peak } = await runMeasuredChild(
      options.root,
      ['admin/cli.ts', 'feed', file, '--queue-url', queueUrl, '--sqs-endpoint', options.sqsEndpoint, '--region', options.region],
      { sampleMs: 200 },
    );
    if (code !== 0) throw new Error(`admin feed exited ${code}: ${output.slice(-400)}`);

    // Every message again: its lines, and where it starts.
    const starts: { first: number; lines: number }[] = [];
    let empty = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (empty < 3) {
          const received = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageAttributeNames: ['All'], VisibilityTimeout: 600 }));
          if (!received.Messages?.length) {
            empty += 1;
            continue;
          }
          for (const message of received.Messages) {
            starts.push({ first: Number(message.MessageAttributes?.first_line?.StringValue), lines: message.Body!.split('\n').length });
          }
        }
      }),
    );
    starts.sort((left, right) => left.first - right.first);
    const contiguous = starts.every((entry, index) => entry.first === (index === 0 ? 1 : starts[index - 1]!.first + starts[index - 1]!.lines));
    const linesQueued = starts.reduce((sum, entry) => sum + entry.lines, 0);
    await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
    const result: FeedUploadResult = {
      lines: options.lines,
      megabytes: mb(bytes),
      seconds: round(seconds, 1),
      linesPerSecond: round(options.lines / seconds, 0),
      messages: starts.length,
      peakRssMb: round(peak, 0),
      linesQueued,
      contiguous,
    };
    context.targets.check({
      section: '7 feed',
      id: 'feed-file-upload',
      subject: `admin feed of ${options.lines.toLocaleString('en-GB')} lines`,
      target: 'every line queued once, in numbered messages without a gap',
      actual: `${linesQueued.toLocaleString('en-GB')} lines in ${starts.length} messages, ${contiguous ? 'contiguous' : 'with gaps or overlaps'}, ${result.seconds} s, peak RSS ${result.peakRssMb} MB`,
      met: linesQueued === options.lines && contiguous,
    });
    return result;
  } finally {
    rmSync(folder, { recursive: true, force: true });
    sqs.destroy();
  }
};
