import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PinpointSMSVoiceV2Client } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it } from 'vitest';
import { sdkSettingsOf } from '../../shared/adapters/aws/sdk-settings';
import { awsVariables, sdkSettingVariables } from '../../shared/config/function-config';
import { readConfiguration } from '../../shared/config/variables';
import { documentClient } from '../../shared/db/client';
import { sqsClient } from '../../shared/queues/sqs-client';
import { tempDirs } from '../support/temp-dirs';

/**
 * The SDK settings given at the SDK's defaults (shared/adapters/aws/sdk-settings.ts): the values
 * are the SDK's own, a variable that is set is still the SDK's to read, and a profile of the
 * shared config file is no longer read for them (the one change, docs/deploy.md).
 */

const variableNames = Object.values(sdkSettingVariables).map((variable) => variable.name);
const saved = new Map<string, string | undefined>();

/** Sets (or, with undefined, removes) process variables for one test; restored after it. */
const setEnvironment = (values: Record<string, string | undefined>): void => {
  for (const [name, value] of Object.entries(values)) {
    if (!saved.has(name)) saved.set(name, process.env[name]);
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
};

afterEach(() => {
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  saved.clear();
});

const newTempDir = tempDirs();

/** A shared config file of its own (a fresh path: the SDK caches files by path), holding `profile`. */
const configFileWith = (profile: string): string => {
  const file = join(newTempDir('sdk-settings-'), 'config');
  writeFileSync(file, `[default]\n${profile}\n`);
  return file;
};

/** What a client resolved for the five settings. */
const resolvedSettings = async (config: Record<string, unknown>) => ({
  useFipsEndpoint: await (config.useFipsEndpoint as () => Promise<boolean>)(),
  useDualstackEndpoint: await (config.useDualstackEndpoint as () => Promise<boolean>)(),
  authSchemePreference: await (config.authSchemePreference as () => Promise<string[]>)(),
  defaultsMode: await (config.defaultsMode as () => Promise<string>)(),
  ...(typeof config.accountIdEndpointMode === 'function' ? { accountIdEndpointMode: await (config.accountIdEndpointMode as () => Promise<string>)() } : {}),
});

describe('the SDK settings read from the environment', () => {
  it('are the SDK defaults when unset or empty, and left to the SDK when set', () => {
    expect(readConfiguration(sdkSettingVariables, {}, 'test')).toEqual({
      useFipsEndpoint: false,
      useDualstackEndpoint: false,
      accountIdEndpointMode: 'preferred',
      authSchemePreference: [],
      defaultsMode: 'legacy',
    });
    expect(readConfiguration(sdkSettingVariables, Object.fromEntries(variableNames.map((name) => [name, ''])), 'test').useFipsEndpoint).toBe(false);
    expect(readConfiguration(sdkSettingVariables, Object.fromEntries(variableNames.map((name) => [name, 'true'])), 'test')).toEqual({
      useFipsEndpoint: undefined,
      useDualstackEndpoint: undefined,
      accountIdEndpointMode: undefined,
      authSchemePreference: undefined,
      defaultsMode: undefined,
    });
    expect(variableNames).toEqual([
      'AWS_USE_FIPS_ENDPOINT',
      'AWS_USE_DUALSTACK_ENDPOINT',
      'AWS_ACCOUNT_ID_ENDPOINT_MODE',
      'AWS_AUTH_SCHEME_PREFERENCE',
      'AWS_DEFAULTS_MODE',
    ]);
  });

  it('resolve in each client to what the SDK finds itself without them, where nothing sets them', async () => {
    setEnvironment({ ...Object.fromEntries(variableNames.map((name) => [name, undefined])), AWS_CONFIG_FILE: configFileWith('region = eu-west-2') });
    const settings = readConfiguration(sdkSettingVariables, {}, 'test');
    const given = sdkSettingsOf(settings);
    for (const build of [
      (options: object) => new DynamoDBClient({ region: 'eu-west-2', ...options, ...(options === given ? { accountIdEndpointMode: settings.accountIdEndpointMode } : {}) }),
      (options: object) => new SQSClient({ region: 'eu-west-2', ...options }),
      (options: object) => new PinpointSMSVoiceV2Client({ region: 'eu-west-2', ...options }),
    ]) {
      const own = await resolvedSettings(build({}).config as unknown as Record<string, unknown>);
      expect(await resolvedSettings(build(given).config as unknown as Record<string, unknown>)).toEqual(own);
    }
  });

  it('are still read by the SDK when the environment sets them', async () => {
    setEnvironment({ AWS_USE_FIPS_ENDPOINT: 'true', AWS_USE_DUALSTACK_ENDPOINT: 'true', AWS_DEFAULTS_MODE: 'standard', AWS_ACCOUNT_ID_ENDPOINT_MODE: 'disabled' });
    const config = readConfiguration(awsVariables, { AWS_REGION: 'eu-west-1', ...process.env }, 'test');
    const client = documentClient({ ...config, dynamodbEndpoint: 'http://127.0.0.1:1/set-variables' });
    expect(await resolvedSettings(client.config as unknown as Record<string, unknown>)).toEqual({
      useFipsEndpoint: true,
      useDualstackEndpoint: true,
      authSchemePreference: [],
      defaultsMode: 'standard',
      accountIdEndpointMode: 'disabled',
    });
  });

  it('are given to the DynamoDB and SQS clients, so that a profile no longer changes them', async () => {
    setEnvironment({
      ...Object.fromEntries(variableNames.map((name) => [name, undefined])),
      AWS_CONFIG_FILE: configFileWith('use_fips_endpoint = true\nuse_dualstack_endpoint = true\ndefaults_mode = standard'),
    });
    const config = readConfiguration(awsVariables, { AWS_REGION: 'eu-west-1' }, 'test');
    // The SDK alone reads the profile ...
    expect(await resolvedSettings(new SQSClient({ region: 'eu-west-1' }).config as unknown as Record<string, unknown>)).toMatchObject({
      useFipsEndpoint: true,
      useDualstackEndpoint: true,
      defaultsMode: 'standard',
    });
    // ... the service's clients are given the defaults.
    const pinned = { useFipsEndpoint: false, useDualstackEndpoint: false, authSchemePreference: [], defaultsMode: 'legacy' };
    const table = documentClient({ ...config, dynamodbEndpoint: 'http://127.0.0.1:1/profile' });
    expect(await resolvedSettings(table.config as unknown as Record<string, unknown>)).toEqual({ ...pinned, accountIdEndpointMode: 'preferred' });
    const queues = sqsClient({ ...config, sqsEndpoint: 'http://127.0.0.1:1/profile' });
    expect(await resolvedSettings(queues.config as unknown as Record<string, unknown>)).toEqual(pinned);
  });
});
