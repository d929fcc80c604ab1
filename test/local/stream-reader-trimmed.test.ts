import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStreamReader, type StreamReader } from '../../local/stream-reader';
import { dynamodbEndpoint } from '../support/dynamodb-lease';
import { eventually } from '../support/eventually';
import { probeConsumer } from './support/probe-consumer';
import { createTestTable, testDynamoClient } from '../support/resources';

/**
 * DynamoDB Local sometimes answers GetRecords with TrimmedDataAccessException although it keeps
 * every record (seen once in a full run: the reader then read nothing more, ever). The local
 * stream reader goes on after the last record it read. The fault is made on the wire: the
 * streams client talks to DynamoDB Local through a proxy that answers the exception's JSON to
 * one iterator every time it is used, as DynamoDB Local did.
 */
const dynamo = testDynamoClient();
const db = DynamoDBDocumentClient.from(dynamo);
let proxy: Server;
let trimNext = false;
let trimmedAnswers = 0;
const trimmedIterators = new Set<string>();
let streams: DynamoDBStreamsClient;
let reader: StreamReader | undefined;
let tableName: string;

beforeAll(async () => {
  tableName = await createTestTable();
  const target = new URL(dynamodbEndpoint());
  proxy = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const getRecords = String(incoming.headers['x-amz-target']).endsWith('.GetRecords');
      const iterator = getRecords ? (JSON.parse(body.toString()) as { ShardIterator: string }).ShardIterator : undefined;
      if (trimNext && iterator) {
        trimNext = false;
        trimmedIterators.add(iterator);
      }
      // As DynamoDB Local did: the iterator fails every time it is used again.
      if (iterator && trimmedIterators.has(iterator)) {
        trimmedAnswers += 1;
        outgoing.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
        outgoing.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#TrimmedDataAccessException', message: 'The operation attempted to read past the oldest stream record in a shard.' }));
        return;
      }
      const forward = httpRequest({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  streams = new DynamoDBStreamsClient({
    endpoint: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    region: 'eu-west-2',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
});

afterAll(async () => {
  await reader?.stop();
  streams?.destroy();
  dynamo.destroy();
  await new Promise<void>((resolve) => proxy?.close(() => resolve()));
});

const consumer = probeConsumer;

const putSim = (id: number) => db.send(new PutCommand({ TableName: tableName, Item: { PK: `SIM#${id}`, SK: 'SIM', type: 'sim', id, status: 'active' } }));

describe('the local stream reader, told an iterator was trimmed', () => {
  it('goes on after the last record it read: nothing lost, nothing handed on twice', async () => {
    const seen: string[] = [];
    reader = startStreamReader({
      dynamo,
      streams,
      tableName,
      consumers: [consumer],
      idleMs: 50,
      quiet: true,
      handler: async (event) => {
        seen.push(...(event as DynamoDBStreamEvent).Records.map((record) => String(record.dynamodb?.Keys?.PK?.S)));
        return { batchItemFailures: [] };
      },
    });
    await reader.ready;
    await putSim(1);
    await eventually(() => expect(seen).toEqual(['SIM#1']), 15_000);

    trimNext = true;
    await eventually(() => expect(trimmedAnswers).toBeGreaterThanOrEqual(1), 15_000);
    await putSim(2);
    await putSim(3);

    await eventually(() => expect(seen).toEqual(['SIM#1', 'SIM#2', 'SIM#3']), 15_000);
  }, 60_000);
});
