import { createServer } from 'node:net';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  InternalServerError,
  ListTablesCommand,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { OverLimit, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransientFailure, isOutage } from '../../shared/errors/outage';
import { createTestTable, testDocumentClient, testDynamoClient } from '../support/resources';
import { freePort } from '../../local/free-port';

/**
 * The one rule that tells an outage (retry the work later) from an error of the content (set
 * the record aside): shared/errors/outage.ts. Errors are the AWS SDK's own: thrown by DynamoDB
 * Local and by a client whose server is gone or never answers, or built from the SDK's classes
 * for the answers DynamoDB Local cannot be made to give (throttling, a 500).
 */

const dynamo = testDynamoClient();
const db = testDocumentClient(dynamo);
let tableName: string;

beforeAll(async () => {
  tableName = await createTestTable({ stream: false });
});
afterAll(() => dynamo.destroy());

/** What `attempt` threw (it must throw). */
const thrown = async (attempt: () => Promise<unknown>): Promise<unknown> => {
  try {
    await attempt();
  } catch (error) {
    return error;
  }
  throw new Error('it did not throw');
};

const metadata = { $metadata: {} };

describe('isOutage', () => {
  it('holds for throttling, capacity and server errors of DynamoDB and SQS', () => {
    expect(isOutage(new ProvisionedThroughputExceededException({ message: 'slow down', ...metadata }))).toBe(true);
    expect(isOutage(new ThrottlingException({ message: 'slow down', ...metadata }))).toBe(true);
    expect(isOutage(new RequestLimitExceeded({ message: 'account limit', ...metadata }))).toBe(true);
    expect(isOutage(new InternalServerError({ message: 'oops', ...metadata }))).toBe(true);
    expect(isOutage(new TransactionConflictException({ message: 'conflict', ...metadata }))).toBe(true);
    expect(isOutage(new OverLimit({ message: 'too many in flight', ...metadata }))).toBe(true);
    // Any answer the SDK marks as the service's fault, or with a 5xx or 429 status.
    expect(isOutage(Object.assign(new Error('?'), { name: 'SomethingNew', $fault: 'server' }))).toBe(true);
    expect(isOutage(Object.assign(new Error('?'), { name: 'SomethingNew', $fault: 'client', $metadata: { httpStatusCode: 503 } }))).toBe(true);
    expect(isOutage(Object.assign(new Error('?'), { name: 'SomethingNew', $fault: 'client', $metadata: { httpStatusCode: 429 } }))).toBe(true);
    expect(isOutage(Object.assign(new Error('?'), { name: 'SomethingNew', $retryable: { throttling: true } }))).toBe(true);
  });

  it('holds for a transaction cancelled by throttling or a conflict only, not by a failed condition', () => {
    const cancelled = (...codes: string[]) =>
      new TransactionCanceledException({ message: 'cancelled', ...metadata, CancellationReasons: codes.map((Code) => ({ Code })) });
    expect(isOutage(cancelled('None', 'TransactionConflict'))).toBe(true);
    expect(isOutage(cancelled('ThrottlingError', 'None'))).toBe(true);
    expect(isOutage(cancelled('ConditionalCheckFailed', 'TransactionConflict'))).toBe(false);
    expect(isOutage(cancelled('ValidationError'))).toBe(false);
  });

  it('holds for the service\'s own TransientFailure (work DynamoDB left undone), also as the cause of another error', () => {
    expect(isOutage(new TransientFailure('3 batched writes stayed unprocessed'))).toBe(true);
    expect(isOutage(new Error('wrapped', { cause: new TransientFailure('unprocessed') }))).toBe(true);
  });

  it('holds for a DynamoDB endpoint that refuses connections (ECONNREFUSED)', async () => {
    const port = await freePort();
    const gone = new DynamoDBClient({ endpoint: `http://127.0.0.1:${port}`, region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
    const error = await thrown(() => gone.send(new ListTablesCommand({})));
    gone.destroy();
    expect((error as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isOutage(error)).toBe(true);
  });

  it('holds for an SQS endpoint that accepts the connection and never answers (the SDK\'s TimeoutError)', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const sqs = new SQSClient({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'eu-west-2',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
      requestHandler: { requestTimeout: 200, throwOnRequestTimeout: true },
    });
    const error = await thrown(() => sqs.send(new SendMessageCommand({ QueueUrl: `http://127.0.0.1:${port}/000000000000/q`, MessageBody: 'x' })));
    sqs.destroy();
    silent.close();
    expect((error as Error).name).toBe('TimeoutError');
    expect(isOutage(error)).toBe(true);
  });

  it('holds for a DynamoDB endpoint that drops the connection mid-request (socket hang up)', async () => {
    const dropping = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const { port } = dropping.address() as { port: number };
    const client = new DynamoDBClient({ endpoint: `http://127.0.0.1:${port}`, region: 'eu-west-2', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
    const error = await thrown(() => client.send(new ListTablesCommand({})));
    client.destroy();
    dropping.close();
    expect((error as { code?: string }).code).toBe('ECONNRESET');
    expect(isOutage(error)).toBe(true);
  });

  it('does not hold for what the content causes: a key over 2048 bytes, a failed condition, a TypeError, anything thrown that is not an error', async () => {
    const oversize = await thrown(() => db.send(new GetCommand({ TableName: tableName, Key: { PK: 'x'.repeat(3000), SK: 'SIM' } })));
    expect((oversize as Error).name).toBe('ValidationException');
    expect(isOutage(oversize)).toBe(false);
    await db.send(new PutCommand({ TableName: tableName, Item: { PK: 'A', SK: 'B' } }));
    const condition = await thrown(() => db.send(new PutCommand({ TableName: tableName, Item: { PK: 'A', SK: 'B' }, ConditionExpression: 'attribute_not_exists(PK)' })));
    expect(condition).toBeInstanceOf(ConditionalCheckFailedException);
    expect(isOutage(condition)).toBe(false);
    const typeError = await thrown(async () => (undefined as unknown as string[])[0]);
    expect(isOutage(typeError)).toBe(false);
    expect(isOutage('a string')).toBe(false);
    expect(isOutage(undefined)).toBe(false);
    expect(isOutage(null)).toBe(false);
    expect(isOutage({ name: 'Error', cause: { name: 'TypeError' } })).toBe(false);
  });
});
