import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { prepareClient } from '../adapters/aws/prepare-client';
import { sdkSettingsOf } from '../adapters/aws/sdk-settings';
import type { AwsConfig, SdkSettingKey } from '../config/function-config';

const clients = new Map<string, DynamoDBDocumentClient>();

/**
 * The DynamoDB document client for a configuration, built once per container (per endpoint
 * and region) and reused by every invocation. A function builds it at init, through its deps
 * (shared/config/define-function.ts), and it is made ready there too: what the SDK would
 * resolve on the first call (region, endpoint and retry settings, and the credentials where
 * reading them needs no network) is resolved then (shared/adapters/aws/prepare-client.ts).
 * The SDK settings the environment leaves unset are given at the SDK's defaults
 * (shared/adapters/aws/sdk-settings.ts). Locally it points at DynamoDB Local, with credentials of its own.
 */
export const documentClient = (config: Pick<AwsConfig, 'region' | 'dynamodbEndpoint' | SdkSettingKey>): DynamoDBDocumentClient => {
  const cacheKey = `${config.region}|${config.dynamodbEndpoint ?? ''}`;
  let client = clients.get(cacheKey);
  if (!client) {
    const base = new DynamoDBClient({
      region: config.region,
      ...sdkSettingsOf(config),
      accountIdEndpointMode: config.accountIdEndpointMode,
      ...(config.dynamodbEndpoint
        ? { endpoint: config.dynamodbEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
    });
    void prepareClient(base, { staticCredentials: config.dynamodbEndpoint !== undefined });
    client = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true },
    });
    clients.set(cacheKey, client);
  }
  return client;
};
