import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AwsConfig } from '../config/function-config';

const clients = new Map<string, DynamoDBDocumentClient>();

/**
 * The DynamoDB document client for a configuration, built once per container (per endpoint
 * and region) and reused by every invocation. Locally it points at DynamoDB Local.
 */
export const documentClient = (config: Pick<AwsConfig, 'region' | 'dynamodbEndpoint'>): DynamoDBDocumentClient => {
  const cacheKey = `${config.region}|${config.dynamodbEndpoint ?? ''}`;
  let client = clients.get(cacheKey);
  if (!client) {
    const base = new DynamoDBClient({
      region: config.region,
      ...(config.dynamodbEndpoint
        ? { endpoint: config.dynamodbEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
    });
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true },
    });
    clients.set(cacheKey, client);
  }
  return client;
};
