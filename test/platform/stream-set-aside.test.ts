import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateQueueCommand, DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runAdmin } from '../../admin/cli';
import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { tempDirs } from '../support/temp-dirs';
import { lambdaContext } from '../../local/lambda-context';
import { freePort } from '../../local/free-port';
import { loadSeedDocument } from '../../local/seed/load';
import type { SimItem } from '../../shared/db/items';
import { key } from '../../shared/db/keys';
import { sqsStreamFailureQueue, failureMessageBody, maxFailureMessageBytes, setAsideEntry } from '../../shared/queues/stream-failures';
import { maintainSimListsConsumer } from '../../shared/routes/maintain-sim-lists';
import { publishLifecycleEvents } from '../../shared/routes/publish-lifecycle-events';
import { readList } from '../../shared/sim-lists/read-list';
import { sqsDeliveryQueue } from '../../shared/webhooks/delivery-queue';
import { createSubscription } from '../../shared/webhooks/subscriptions';
import { captureLogLines, logEntries } from '../support/log-lines';
import { createTestTable, testDocumentClient, testDynamoClient, testSqsClient } from '../support/resources';

/**
 * The table-stream consumers called as Lambda calls them (issue #31, point 5), on DynamoDB
 * Local and the SQS emulator: a record they cannot process is set aside at once on the failure
 * queue (the message checked whole) while the records before and after it in the batch are
 * processed, in order; an outage (an endpoint that refuses connections) fails the batch from
 * the record it met, as before, and sets nothing aside; a failure queue that is down is an
 * outage too, so the record is read again rather than lost. A set-aside record is replayed
 * with `npm run admin -- replay-stream-record`.
 */

const seed: unknown = JSON.parse(readFileSync(new URL('../../local/demo-seed.json', import.meta.url), 'utf8'));
const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);
const sqs = testSqsClient();
let tableName: string;
let failureUrl: string;
let deliveryUrl: string;
let gone: string;
const streamArn = 'arn:aws:dynamodb:eu-west-2:000000000000:table/test/stream/2026-11-25T00:00:00.000';

beforeAll(async () => {
  tableName = await createTestTable({ stream: false });
  await loadSeedDocument(seed, { client: dynamo, tableName });
  const suffix = tableName.slice(-8);
  failureUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `set-aside-${suffix}` }))).QueueUrl!;
  deliveryUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `deliveries-${suffix}` }))).QueueUrl!;
  await createSubscription({ db, tableName }, {
    id: 'wh_000000000000000000000001', customerId: 'globex', url: 'https://hooks.example.net/x', events: ['line.suspended', 'line.activated'],
    description: null, secretSealed: 'sealed', nowMs: Date.now(),
  });
  gone = `http://127.0.0.1:${await freePort()}`;
}, 60_000);

afterAll(() => {
  dynamo.destroy();
  sqs.destroy();
});

/** Every message of a queue, taken. */
const drain = async (client: SQSClient, url: string): Promise<string[]> => {
  const bodies: string[] = [];
  for (;;) {
    const received = await client.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!received.Messages?.length) return bodies;
    bodies.push(...received.Messages.map((message) => message.Body!));
    await client.send(new DeleteMessageBatchCommand({ QueueUrl: url, Entries: received.Messages.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle! })) }));
  }
};

/** A SIM's item as the table holds it. */
const simItem = async (id: number): Promise<SimItem & Record<string, unknown>> => (await db.send(new GetCommand({ TableName: tableName, Key: key.sim(id) }))).Item as SimItem & Record<string, unknown>;

let sequence = 1000;
/** A MODIFY record of a SIM, as Lambda hands it over. */
const modify = (before: Record<string, unknown>, after: Record<string, unknown>): DynamoDBRecord => {
  sequence += 1;
  return {
    eventID: `event-${sequence}`,
    eventName: 'MODIFY',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'eu-west-2',
    eventSourceARN: streamArn,
    dynamodb: {
      ApproximateCreationDateTime: 1_795_000_000,
      Keys: marshall({ PK: before.PK, SK: before.SK }) as never,
      NewImage: marshall(after, { removeUndefinedValues: true }) as never,
      OldImage: marshall(before, { removeUndefinedValues: true }) as never,
      SequenceNumber: String(sequence).padStart(21, '0'),
      SizeBytes: 100,
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
};

const event = (...records: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: records });
const context = (name: string) => lambdaContext({ name, timeoutSeconds: 30 });

/** A client of a server that is not there: every call is an outage (ECONNREFUSED). */
const goneDocuments = () =>
  DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: gone, region: 'eu-west-2', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 }));
const goneSqs = () => new SQSClient({ endpoint: gone, region: 'eu-west-2', credentials: { accessKeyId: 'x', secretAccessKey: 'x' }, maxAttempts: 1 });

describe('publish-lifecycle-events', () => {
  const publish = (overrides: { deliveryUrl?: string; deliveries?: SQSClient; failures?: SQSClient } = {}) =>
    publishLifecycleEvents({
      db,
      tableName,
      queue: sqsDeliveryQueue(overrides.deliveries ?? sqs, overrides.deliveryUrl ?? deliveryUrl),
      failures: sqsStreamFailureQueue(overrides.failures ?? sqs, failureUrl),
    });

  it('sets a record it cannot process aside with its reason, and publishes the records before and after it', async () => {
    const [first, second] = [await simItem(1026), await simItem(1029)];
    const poisoned = { ...second, customer_path: 'globex' };
    const records = [
      modify(first, { ...first, status: 'suspended' }),
      modify(second, { ...poisoned, status: 'suspended' }),
      modify(second, { ...second, status: 'suspended' }),
    ];
    const capture = captureLogLines();
    let result: DynamoDBBatchResponse;
    try {
      result = await publish()(event(...records), context('publish-lifecycle-events'));
    } finally {
      capture.restore();
    }
    expect(result).toEqual({ batchItemFailures: [] });
    const jobs = (await drain(sqs, deliveryUrl)).map((body) => JSON.parse(body) as { event: { type: string; data: { id: number } } });
    expect(jobs.map((job) => [job.event.type, job.event.data.id])).toEqual([['line.suspended', 1026], ['line.suspended', 1029]]);
    const [message, ...more] = await drain(sqs, failureUrl);
    expect(more).toEqual([]);
    expect(JSON.parse(message!)).toEqual({
      kind: 'stream-record-set-aside',
      consumer: 'publish-lifecycle-events',
      reason: 'MalformedItem: sim SIM#1029: customer_path must be a non-empty list of customer ids, not string "globex"',
      set_aside_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      event_id: records[1]!.eventID,
      event_name: 'MODIFY',
      sequence_number: records[1]!.dynamodb!.SequenceNumber,
      stream_arn: streamArn,
      keys: { PK: 'SIM#1029', SK: 'SIM' },
      item_type: 'sim',
      changed_at: new Date(1_795_000_000_000).toISOString(),
      record: records[1],
    });
    const lines = logEntries(capture.lines()).filter((line) => line.level === 'ERROR');
    expect(lines.map((line) => [line.message, line.consumer, line.correlation_id, line.reason])).toEqual([
      ['stream record set aside', 'publish-lifecycle-events', records[1]!.eventID, JSON.parse(message!).reason],
    ]);
  });

  it('fails the batch from the record that met an outage, and sets nothing aside', async () => {
    const [first, second] = [await simItem(1026), await simItem(1029)];
    const records = [modify(first, { ...first, status: 'suspended' }), modify(second, { ...second, status: 'suspended' })];
    const deliveries = goneSqs();
    const result = await publish({ deliveries })(event(...records), context('publish-lifecycle-events'));
    deliveries.destroy();
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: records[0]!.dynamodb!.SequenceNumber }] });
    expect(await drain(sqs, failureUrl)).toEqual([]);
  });

  it('reads a record again, not losing it, when its failure queue is down (an outage)', async () => {
    const [first, second] = [await simItem(1026), await simItem(1029)];
    const records = [modify(first, { ...first, status: 'suspended' }), modify(second, { ...second, customer_path: [], status: 'suspended' })];
    const failures = goneSqs();
    const result = await publish({ failures })(event(...records), context('publish-lifecycle-events'));
    failures.destroy();
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.dynamodb!.SequenceNumber }] });
    expect((await drain(sqs, deliveryUrl)).length).toBe(1);
  });
});

describe('maintain-sim-lists', () => {
  const suspendedOfGlobex = async () =>
    (await readList({ db, tableName }, { groupId: 'globex', customerId: 'globex', direct: false, status: 'suspended', page: 1, pageSize: 100 }))?.ids;

  it('finds the record that fails the batch, sets it aside, and applies the records before and after it in order', async () => {
    const [first, second, third, poisoned] = [await simItem(1026), await simItem(1029), await simItem(1030), await simItem(1028)];
    expect(await suspendedOfGlobex()).toEqual([]);
    const records = [
      modify(first, { ...first, status: 'suspended' }),
      modify(third, { ...third, status: 'suspended' }),
      // A SIM on a bundle whose usage is not an amount: its pool share cannot be read.
      modify(poisoned, { ...poisoned, status: 'suspended', data_bundle: { id: 'b-globex' }, data_used_mb: '4.25.00' }),
      modify({ ...first, status: 'suspended' }, first),
      modify(second, { ...second, status: 'suspended' }),
    ];
    const capture = captureLogLines();
    let result: DynamoDBBatchResponse;
    try {
      result = await maintainSimListsConsumer({ db, tableName, failures: sqsStreamFailureQueue(sqs, failureUrl) })(event(...records), context('maintain-sim-lists'));
    } finally {
      capture.restore();
    }
    expect(result).toEqual({ batchItemFailures: [] });
    // 1026 suspended then active again (in order), 1030 and 1029 suspended.
    expect(await suspendedOfGlobex()).toEqual([1029, 1030]);
    const set = (await drain(sqs, failureUrl)).map((body) => JSON.parse(body) as { consumer: string; keys: unknown; reason: string; sequence_number: string });
    expect(set.map((entry) => [entry.consumer, entry.keys, entry.reason, entry.sequence_number])).toEqual([
      ['maintain-sim-lists', { PK: 'SIM#1028', SK: 'SIM' }, 'Error: not a decimal amount: "4.25.00"', records[2]!.dynamodb!.SequenceNumber],
    ]);
    const lines = logEntries(capture.lines());
    expect(lines.filter((line) => line.level === 'WARN').map((line) => line.message)).toEqual(['sim list maintenance failed; finding the record that fails it']);
    expect(lines.filter((line) => line.level === 'ERROR').map((line) => line.message)).toEqual(['stream record set aside']);
  });

  it('reads the rest again rather than run out of time while it looks for the record that fails the batch', async () => {
    const [first, poisoned] = [await simItem(1026), await simItem(1028)];
    const records = [
      modify(first, { ...first, status: 'suspended' }),
      modify(poisoned, { ...poisoned, status: 'suspended', data_bundle: { id: 'b-globex' }, data_used_mb: '4.25.00' }),
    ];
    // A function with no time left: the whole batch is tried once, then nothing more.
    const result = await maintainSimListsConsumer({ db, tableName, failures: sqsStreamFailureQueue(sqs, failureUrl) })(event(...records), lambdaContext({ name: 'maintain-sim-lists', timeoutSeconds: 0.001 }));
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: records[0]!.dynamodb!.SequenceNumber }] });
    expect(await drain(sqs, failureUrl)).toEqual([]);
  });

  it('fails the batch from its first record on an outage, and sets nothing aside', async () => {
    const first = await simItem(1027);
    const records = [modify(first, { ...first, status: 'suspended' })];
    const result = await maintainSimListsConsumer({ db: goneDocuments(), tableName, failures: sqsStreamFailureQueue(sqs, failureUrl) })(event(...records), context('maintain-sim-lists'));
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: records[0]!.dynamodb!.SequenceNumber }] });
    expect(await drain(sqs, failureUrl)).toEqual([]);
  });
});

describe('replaying a set-aside record (npm run admin -- replay-stream-record FILE)', () => {
  const newDir = tempDirs();
  const admin = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runAdmin([...args, '--table', tableName, '--endpoint', dynamodbEndpoint()], { env: {}, out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out, err };
  };
  const saved = (body: string): string => {
    const file = join(newDir('set-aside-'), 'message.json');
    writeFileSync(file, body);
    return file;
  };
  const listOfGlobex = async (status: string) =>
    (await readList({ db, tableName }, { groupId: 'globex', customerId: 'globex', direct: false, status, page: 1, pageSize: 100 }))?.ids ?? [];

  it('relists a SIM whose records maintain-sim-lists set aside, from what the index last saw of it to the item fixed', async () => {
    const before = await simItem(1027);
    expect(await listOfGlobex('dispatched')).toContain(1027);
    const poisoned = { ...before, customer_path: 'globex', status: 'suspended' };
    const fixed = { ...before, status: 'suspended' };
    const consume = maintainSimListsConsumer({ db, tableName, failures: sqsStreamFailureQueue(sqs, failureUrl) });
    // The poisoned image, then the fix (whose old image is the poisoned one): both set aside.
    expect(await consume(event(modify(before, poisoned)), context('maintain-sim-lists'))).toEqual({ batchItemFailures: [] });
    expect(await consume(event(modify(poisoned, fixed)), context('maintain-sim-lists'))).toEqual({ batchItemFailures: [] });
    await db.send(new PutCommand({ TableName: tableName, Item: fixed }));
    const [first, second] = await drain(sqs, failureUrl);
    // The index still lists what it last saw: dispatched.
    expect([await listOfGlobex('dispatched'), await listOfGlobex('suspended')].map((ids) => ids.includes(1027))).toEqual([true, false]);

    expect(await admin('replay-stream-record', saved(second!))).toEqual({
      code: 1,
      out: [],
      err: [
        'Refused: the record\'s old image of SIM 1027 is malformed too (MalformedItem: sim SIM#1027: customer_path must be a non-empty list of customer ids, not string "globex"): replay the earliest record of this SIM that was set aside',
      ],
    });
    expect(await admin('replay-stream-record', saved(first!))).toEqual({
      code: 0,
      out: ['SIM 1027 relisted: 2 entries put, 2 deleted, 2 buckets counted again'],
      err: [],
    });
    expect([await listOfGlobex('dispatched'), await listOfGlobex('suspended')].map((ids) => ids.includes(1027))).toEqual([false, true]);
    // Again: the same outcome.
    expect((await admin('replay-stream-record', saved(first!))).code).toBe(0);
    expect([await listOfGlobex('dispatched'), await listOfGlobex('suspended')].map((ids) => ids.includes(1027))).toEqual([false, true]);
  });

  it('queues the lifecycle events of a publish-lifecycle-events record again, with the same event ids', async () => {
    const sim = await simItem(1026);
    const record = modify(sim, { ...sim, status: 'suspended' });
    const body = failureMessageBody(setAsideEntry('publish-lifecycle-events', record, new Error('fixed since')));
    expect(await admin('replay-stream-record', saved(body))).toEqual({ code: 2, out: [], err: [expect.stringContaining('needs --queue-url')] });
    const replayed = await admin('replay-stream-record', saved(body), '--queue-url', deliveryUrl, '--sqs-endpoint', inject('sqsEndpoint'));
    expect(replayed).toEqual({ code: 0, out: [`Queued the lifecycle events of stream record ${record.eventID} again ({"PK":"SIM#1026","SK":"SIM"})`], err: [] });
    const jobs = (await drain(sqs, deliveryUrl)).map((job) => JSON.parse(job) as { subscription_id: string; event: { id: string; type: string } });
    expect(jobs.map((job) => [job.subscription_id, job.event.type])).toEqual([['wh_000000000000000000000001', 'line.suspended']]);
    // The id the consumer itself gives the event of that record.
    await publishLifecycleEvents({ db, tableName, queue: sqsDeliveryQueue(sqs, deliveryUrl), failures: sqsStreamFailureQueue(sqs, failureUrl) })(event(record), context('publish-lifecycle-events'));
    expect((await drain(sqs, deliveryUrl)).map((job) => (JSON.parse(job) as { event: { id: string } }).event.id)).toEqual([jobs[0]!.event.id]);
  });

  it('refuses a message of retries run out (positions, not a record) and a file that is not a failure queue message', async () => {
    const positions = JSON.stringify({ requestContext: { condition: 'RetryAttemptsExhausted' }, DDBStreamBatchInfo: { shardId: 's', startSequenceNumber: '1', endSequenceNumber: '2' } });
    expect((await admin('replay-stream-record', saved(positions))).err).toEqual([
      expect.stringContaining('holds the positions of records whose retries ran out, not a record: read the records from the stream'),
    ]);
    expect((await admin('replay-stream-record', saved('{"kind":"other"}'))).err).toEqual([expect.stringMatching(/is not a record a stream consumer set aside$/)]);
    expect((await admin('replay-stream-record', saved('not json'))).code).toBe(1);
  });
});

describe('the failure queue message', () => {
  it('leaves out a record larger than a queue message, and says where to read it', async () => {
    const sim = await simItem(1026);
    const large = modify(sim, { ...sim, note: 'x'.repeat(maxFailureMessageBytes) });
    const body = JSON.parse(failureMessageBody(setAsideEntry('publish-lifecycle-events', large, new TypeError('boom'))));
    expect(body).toEqual(expect.objectContaining({ reason: 'TypeError: boom', keys: { PK: 'SIM#1026', SK: 'SIM' }, record_omitted: expect.stringContaining('sequence_number') }));
    expect(body.record).toBeUndefined();
    expect(Buffer.byteLength(failureMessageBody(setAsideEntry('c', modify(sim, sim), 'x'.repeat(5000))))).toBeLessThan(maxFailureMessageBytes);
    expect(JSON.parse(failureMessageBody(setAsideEntry('c', modify(sim, sim), 'x'.repeat(5000)))).reason).toBe('x'.repeat(200));
  });
});
