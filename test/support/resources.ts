import { dynamodbEndpoint } from './dynamodb-lease';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { createTable } from '../../local/create-table';
import { createQueues, type QueueUrls } from '../../local/sqs-local';
import type { QueueName } from '../../shared/topology/routes';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
const region = 'eu-west-2';

/** A DynamoDB client for the run's DynamoDB Local. */
export const testDynamoClient = (): DynamoDBClient =>
  new DynamoDBClient({ endpoint: dynamodbEndpoint(), region, credentials });

/** The document client over `client` with the marshalling the service's own uses (shared/db/client.ts: undefined values left out). */
export const testDocumentClient = (client: DynamoDBClient = testDynamoClient()): DynamoDBDocumentClient =>
  DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

/** An SQS client for the run's SQS emulator. */
export const testSqsClient = (): SQSClient => new SQSClient({ endpoint: inject('sqsEndpoint'), region, credentials });

/**
 * A fresh, uniquely named service table in the run's DynamoDB Local; `stream: false` for a
 * table no stream reader reads (a large one loaded in bulk would slow the stream readers of
 * the other test files, which share the one DynamoDB Local).
 */
export const createTestTable = async (options: { stream?: boolean } = {}): Promise<string> => {
  const tableName = `test-${randomUUID()}`;
  const client = testDynamoClient();
  await createTable(client, tableName, options);
  client.destroy();
  return tableName;
};

/** Fresh, uniquely prefixed service queues in the run's SQS emulator. */
export const createTestQueues = async (): Promise<Record<QueueName, QueueUrls>> => {
  const client = testSqsClient();
  const queues = await createQueues(client, `t${randomUUID().slice(0, 8)}-`);
  client.destroy();
  return queues;
};

/** Environment variables that point the service's code at the run's local servers. */
export const localServiceEnv = (tableName: string): Record<string, string> => ({
  AWS_REGION: region,
  AWS_ACCESS_KEY_ID: credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  TABLE_NAME: tableName,
  DYNAMODB_ENDPOINT: dynamodbEndpoint(),
  SQS_ENDPOINT: inject('sqsEndpoint'),
});
