import { SQSClient } from '@aws-sdk/client-sqs';
import { prepareClient } from '../adapters/aws/prepare-client';
import { sdkSettingsOf } from '../adapters/aws/sdk-settings';
import type { AwsConfig, SdkSettingKey } from '../config/function-config';

const clients = new Map<string, SQSClient>();

/**
 * The SQS client for a configuration, built once per container (per endpoint and region) and
 * shared by every queue a function sends to or changes, and made ready at init as the
 * DynamoDB client is (shared/adapters/aws/prepare-client.ts), with the same SDK settings
 * (shared/adapters/aws/sdk-settings.ts). Locally it points at the SQS emulator.
 */
export const sqsClient = (config: Pick<AwsConfig, 'region' | 'sqsEndpoint' | SdkSettingKey>): SQSClient => {
  const cacheKey = `${config.region}|${config.sqsEndpoint ?? ''}`;
  let client = clients.get(cacheKey);
  if (!client) {
    client = new SQSClient({ region: config.region, ...sdkSettingsOf(config), ...(config.sqsEndpoint ? { endpoint: config.sqsEndpoint } : {}) });
    void prepareClient(client, { staticCredentials: false });
    clients.set(cacheKey, client);
  }
  return client;
};
