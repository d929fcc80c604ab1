import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';

/**
 * Baseline of the bundle figures: a handler that bundles only the DynamoDB document client
 * and reads one item, building its client on first use like the service's handlers do
 * (shared/db/client.ts), so that loading it costs what loading the SDK costs. The item's key
 * comes with the event (built by the caller with shared/db/keys.ts), so that the bundle
 * carries no project code, not even the key builders (about 4 KB); the benchmark builds and
 * imports this bundle but never calls it.
 */
let client: DynamoDBDocumentClient | undefined;

export const handler = async (event: { key: Record<string, string> }): Promise<{ statusCode: number; body: string }> => {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });
  const output = await client.send(new GetCommand({ TableName: process.env.TABLE_NAME, Key: event.key }));
  return { statusCode: output.Item ? 200 : 404, body: JSON.stringify(output.Item ?? {}) };
};
