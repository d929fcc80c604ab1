import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { randomUUID } from 'node:crypto';
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStreamReader, type StreamReader } from '../../local/stream-reader';
import { createTestTable, testDynamoClient, testSqsClient } from '../support/resources';
import { eventually } from '../support/eventually';
import { probeConsumer } from './support/probe-consumer';

/**
 * The local runtime's reader of the table's stream (local/stream-reader.ts) against DynamoDB
 * Local: real DynamoDBStreamEvents in Lambda's shape, the consumer's item-type filter, a
 * reported batch item failure read again from that record, nothing skipped, a reader held
 * while records are written handing them on in full batches once released, an image with a
 * map key `__proto__` handed over, and a record given up once its retries ran out.
 */

const dynamo = testDynamoClient();
const db = DynamoDBDocumentClient.from(dynamo);
const streams = new DynamoDBStreamsClient({ endpoint: dynamodbEndpoint(), region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
const consumer = probeConsumer;
let tableName: string;
let reader: StreamReader | undefined;

beforeAll(async () => {
  tableName = await createTestTable();
});

afterAll(async () => {
  await reader?.stop();
  streams.destroy();
  dynamo.destroy();
});

/** The reader of the test table's stream for `consumer`, every 50 ms, into `handler`. */
const readerWith = (handler: NonNullable<Parameters<typeof startStreamReader>[0]['handler']>): StreamReader =>
  startStreamReader({ dynamo, streams, tableName, consumers: [consumer], idleMs: 50, quiet: true, handler });

describe('the local stream reader', () => {
  it('hands the consumer real stream events of its item types, and reads a failed record again', async () => {
    const events: DynamoDBStreamEvent[] = [];
    let failedOnce = false;
    reader = readerWith(async (event) => {
      const streamEvent = event as DynamoDBStreamEvent;
      events.push(streamEvent);
      const second = streamEvent.Records.find((record) => record.dynamodb?.NewImage?.id?.N === '2');
      if (second && !failedOnce) {
        failedOnce = true;
        return { batchItemFailures: [{ itemIdentifier: second.dynamodb!.SequenceNumber }] };
      }
      return { batchItemFailures: [] };
    });
    // The reader starts at the latest record: what is written once it is ready reaches it.
    await reader.ready;
    await db.send(new PutCommand({ TableName: tableName, Item: { PK: 'SIM#1', SK: 'SIM', type: 'sim', id: 1, status: 'active' } }));
    await db.send(new PutCommand({ TableName: tableName, Item: { PK: 'RATE#u', SK: 'CUSTOMER#c', b0: 1 } }));
    await db.send(new PutCommand({ TableName: tableName, Item: { PK: 'SIM#2', SK: 'SIM', type: 'sim', id: 2, status: 'active' } }));
    await db.send(
      new UpdateCommand({ TableName: tableName, Key: { PK: 'SIM#1', SK: 'SIM' }, UpdateExpression: 'SET #s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': 'suspended' } }),
    );

    const seen = () => events.flatMap((event) => event.Records.map((record) => `${record.eventName} ${record.dynamodb?.Keys?.PK?.S}`));
    // The failed batch itself may already hold MODIFY SIM#1 (what came after SIM#2): wait for
    // the read again from SIM#2, which the reader makes a second after a reported failure.
    await eventually(() => expect(seen().filter((entry) => entry === 'INSERT SIM#2')).toHaveLength(2), 15_000);
    await eventually(() => expect(seen().slice(seen().lastIndexOf('INSERT SIM#2'))).toEqual(['INSERT SIM#2', 'MODIFY SIM#1']), 15_000);
    const all = seen();
    // SIM#2 failed once and came again, followed by what came after it; the rate-limit item never reached the consumer.
    expect(all.filter((entry) => entry === 'INSERT SIM#2')).toHaveLength(2);
    expect(all.filter((entry) => entry === 'INSERT SIM#1')).toHaveLength(1);
    expect(all.some((entry) => entry.includes('RATE#'))).toBe(false);
    expect(all.slice(all.lastIndexOf('INSERT SIM#2'))).toEqual(['INSERT SIM#2', 'MODIFY SIM#1']);

    const modify = events.flatMap((event) => event.Records).find((record) => record.eventName === 'MODIFY')!;
    expect(modify).toEqual({
      eventID: expect.any(String),
      eventName: 'MODIFY',
      eventVersion: expect.any(String),
      eventSource: 'aws:dynamodb',
      awsRegion: expect.any(String),
      eventSourceARN: expect.stringContaining(`table/${tableName}/stream/`),
      dynamodb: {
        ApproximateCreationDateTime: expect.any(Number),
        Keys: { PK: { S: 'SIM#1' }, SK: { S: 'SIM' } },
        NewImage: { PK: { S: 'SIM#1' }, SK: { S: 'SIM' }, type: { S: 'sim' }, id: { N: '1' }, status: { S: 'suspended' } },
        OldImage: { PK: { S: 'SIM#1' }, SK: { S: 'SIM' }, type: { S: 'sim' }, id: { N: '1' }, status: { S: 'active' } },
        SequenceNumber: expect.any(String),
        SizeBytes: expect.any(Number),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    });
    expect(Math.abs(modify.dynamodb!.ApproximateCreationDateTime! - Date.now() / 1000)).toBeLessThan(120);
  }, 30_000);

  it('reads nothing while held, then hands on what was written meanwhile in batches of the consumer\'s size', async () => {
    await reader?.stop();
    const batches: string[][] = [];
    const held = readerWith(async (event) => {
      batches.push((event as DynamoDBStreamEvent).Records.map((record) => String(record.dynamodb?.Keys?.PK?.S)));
      return { batchItemFailures: [] };
    });
    reader = held;
    await held.ready;
    held.hold();
    for (let id = 100; id < 125; id += 1) await db.send(new PutCommand({ TableName: tableName, Item: { PK: `SIM#${id}`, SK: 'SIM', type: 'sim', id, status: 'active' } }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(batches).toEqual([]);
    held.release();
    await eventually(() => expect(batches.flat()).toHaveLength(25), 15_000);
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 5]);
    expect(batches.flat()).toEqual(Array.from({ length: 25 }, (_, index) => `SIM#${100 + index}`));
  }, 30_000);

  it('hands over an image with a map key `__proto__`, which the SDK cannot read, without it (as the consumers\' unmarshall would drop it)', async () => {
    await reader?.stop();
    const events: DynamoDBStreamEvent[] = [];
    reader = readerWith(async (event) => {
      events.push(event as DynamoDBStreamEvent);
      return { batchItemFailures: [] };
    });
    await reader.ready;
    await dynamo.send(
      new PutItemCommand({
        TableName: tableName,
        Item: {
          PK: { S: 'SIM#300' }, SK: { S: 'SIM' }, type: { S: 'sim' }, id: { N: '300' },
          list_pos: { M: Object.fromEntries([['__proto__', { S: '20261125#1' }], ['acme', { S: '20261125#2' }]]) },
        },
      }),
    );
    await db.send(new PutCommand({ TableName: tableName, Item: { PK: 'SIM#301', SK: 'SIM', type: 'sim', id: 301 } }));
    await eventually(() => expect(events.flatMap((event) => event.Records.map((record) => record.dynamodb?.Keys?.PK?.S))).toEqual(['SIM#300', 'SIM#301']), 15_000);
    expect(events[0]!.Records[0]!.dynamodb!.NewImage!.list_pos).toEqual({ M: { acme: { S: '20261125#2' } } });
  }, 30_000);

  it('gives a record up after the consumer\'s retries, its position to the failure queue, and reads on after it', async () => {
    await reader?.stop();
    const sqs = testSqsClient();
    const failureUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `probe-failures-${randomUUID().slice(0, 8)}` }))).QueueUrl!;
    const batches: string[][] = [];
    reader = startStreamReader({
      dynamo, streams, tableName, consumers: [consumer], idleMs: 50, retryDelayMs: 50, quiet: true,
      failureQueues: { sqs, urls: { [consumer.name]: failureUrl } },
      // Fails at SIM#401 every time: an outage that does not end, as the consumer reports one.
      handler: async (event) => {
        const records = (event as DynamoDBStreamEvent).Records;
        batches.push(records.map((record) => String(record.dynamodb?.Keys?.PK?.S)));
        const stuck = records.find((record) => record.dynamodb?.Keys?.PK?.S === 'SIM#401');
        return { batchItemFailures: stuck ? [{ itemIdentifier: stuck.dynamodb!.SequenceNumber }] : [] };
      },
    });
    await reader.ready;
    for (const id of [400, 401, 402]) await db.send(new PutCommand({ TableName: tableName, Item: { PK: `SIM#${id}`, SK: 'SIM', type: 'sim', id } }));
    // The first try and one retry (the probe's retryAttempts), then SIM#402 goes on alone.
    await eventually(() => expect(batches.at(-1)).toEqual(['SIM#402']), 15_000);
    expect(batches.flat().filter((pk) => pk === 'SIM#401')).toHaveLength(2);
    const received = await eventually(async () => {
      const found = await sqs.send(new ReceiveMessageCommand({ QueueUrl: failureUrl, MaxNumberOfMessages: 10 }));
      expect(found.Messages).toHaveLength(1);
      return JSON.parse(found.Messages![0]!.Body!) as Record<string, any>;
    });
    expect(received).toEqual({
      requestContext: { requestId: expect.any(String), functionArn: 'arn:aws:lambda:eu-west-2:000000000000:function:probe', condition: 'RetryAttemptsExhausted', approximateInvokeCount: 2 },
      responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: null },
      version: '1.0',
      timestamp: expect.any(String),
      DDBStreamBatchInfo: {
        shardId: expect.any(String),
        startSequenceNumber: expect.any(String),
        endSequenceNumber: expect.any(String),
        approximateArrivalOfFirstRecord: expect.any(String),
        approximateArrivalOfLastRecord: expect.any(String),
        batchSize: 1,
        streamArn: expect.stringContaining(`table/${tableName}/stream/`),
      },
    });
    expect(received.DDBStreamBatchInfo.startSequenceNumber).toBe(received.DDBStreamBatchInfo.endSequenceNumber);
    sqs.destroy();
  }, 30_000);
});
