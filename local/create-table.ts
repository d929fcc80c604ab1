import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { globalSecondaryIndexDeclarations, keySchema, tableDefinition } from '../shared/db/table';

/** Whether a table of that name exists (DescribeTable). */
export const tableExists = async (client: DynamoDBClient, tableName: string): Promise<boolean> => {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundException || (error as Error).name === 'ResourceNotFoundException') return false;
    throw error;
  }
};

/**
 * Creates the service table from the shared table definition (the same key schema,
 * indexes, stream and TTL attribute as the CDK stack), unless it exists already (`stream:
 * false` leaves the stream out, for a test whose table no consumer reads). Returns whether it
 * was created.
 */
export const createTable = async (client: DynamoDBClient, tableName: string, options: { stream?: boolean } = {}): Promise<boolean> => {
  if (await tableExists(client, tableName)) return false;
  const attributeNames = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);
  for (const index of tableDefinition.globalSecondaryIndexes) {
    attributeNames.add(index.partitionKey);
    attributeNames.add(index.sortKey);
  }
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      // Without a stream only for tests that read nothing from it: DynamoDB Local keeps every
      // stream record, and a table loaded in bulk slows down the stream readers of the others.
      StreamSpecification: options.stream === false ? { StreamEnabled: false } : { StreamEnabled: true, StreamViewType: tableDefinition.streamView },
      KeySchema: keySchema(tableDefinition.partitionKey, tableDefinition.sortKey),
      AttributeDefinitions: [...attributeNames].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      GlobalSecondaryIndexes: globalSecondaryIndexDeclarations(),
    }),
  );
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: tableDefinition.timeToLiveAttribute, Enabled: true },
    }),
  );
  return true;
};

/**
 * Turns the table's stream on (the service's view type) when it is off: a table created
 * without it for a load in bulk (`stream: false`), whose items no stream consumer must see (the
 * list index is built with them; the consumer would count them twice), gets it before anything
 * else writes. Its shard then starts empty, after the load.
 */
export const enableStream = async (client: DynamoDBClient, tableName: string): Promise<void> => {
  const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
  if (Table?.StreamSpecification?.StreamEnabled) return;
  await client.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamView } }));
};
