/**
 * Which SMS provider adapter this environment uses. It stays in sms/ rather than beside the
 * adapter (shared/adapters/sms-provider/): it uses the SMS configuration and
 * the request's origin (requestBaseUrl, shared/http/headers.ts), which an adapter does not know about.
 */
import { getSecret } from '../config/secrets';
import type { AwsConfig, SdkSettingKey, SmsConfig } from '../config/function-config';
import { sdkSettingsOf } from '../adapters/aws/sdk-settings';
import { awsSmsProvider } from '../adapters/sms-provider/aws-sms-provider';
import { httpSmsProvider, type SmsProvider } from '../adapters/sms-provider/provider';

/** Path of the inbound receipts route (shared/topology/routes.ts), appended to the public base URL. */
export const receiptsPath = '/sms-provider/receipts';

/**
 * The provider adapter for this environment: SMS_PROVIDER_URL, the SMS_PROVIDER_TOKEN secret,
 * and receipts to `<PUBLIC_BASE_URL or the request's origin>/sms-provider/receipts`.
 * Undefined when the URL or the token is not configured (the API answers sms_not_configured).
 */
export const configuredSmsProvider = async (config: SmsConfig, fallbackBaseUrl: string | undefined): Promise<SmsProvider | undefined> => {
  const token = await getSecret('SMS_PROVIDER_TOKEN');
  const base = config.publicBaseUrl ?? fallbackBaseUrl;
  if (!config.providerUrl || !token || !base) return undefined;
  return httpSmsProvider({
    baseUrl: config.providerUrl,
    token,
    receiptUrl: `${base.replace(/\/+$/, '')}${receiptsPath}`,
    extraCaCertificates: config.extraCaCertificates,
  });
};

/**
 * The SMS provider of a function that sends SMS, chosen by SMS_PROVIDER, built once at the
 * function's init (call this in its deps): `http` (the default), the provider HTTP API per
 * request as `configuredSmsProvider` (its token is a secret, read through the cache); `aws`,
 * AWS End User Messaging SMS, whose client is built now, once per container, from AWS_REGION,
 * SMS_ORIGINATION_IDENTITY, SMS_CONFIGURATION_SET and AWS_SMS_ENDPOINT. Its `provider` resolves
 * to undefined when the chosen provider lacks configuration (the API answers
 * `sms_not_configured`); `missing` names what is missing, for the ERROR line.
 */
export const smsProviderOf = (
  config: SmsConfig & Pick<AwsConfig, 'region' | SdkSettingKey>,
): { provider: (fallbackBaseUrl: string | undefined) => Promise<SmsProvider | undefined>; missing: string } => {
  if (config.smsProvider === 'aws') {
    const missing = [
      ...(config.originationIdentity ? [] : ['SMS_ORIGINATION_IDENTITY']),
      ...(config.configurationSet ? [] : ['SMS_CONFIGURATION_SET']),
    ];
    if (missing.length > 0) return { provider: async () => undefined, missing: `SMS_PROVIDER=aws needs ${missing.join(' and ')}` };
    const aws = awsSmsProvider({
      region: config.region,
      sdkSettings: sdkSettingsOf(config),
      originationIdentity: config.originationIdentity!,
      configurationSet: config.configurationSet!,
      ...(config.awsSmsEndpoint ? { endpoint: config.awsSmsEndpoint } : {}),
    });
    return { provider: async () => aws, missing: '' };
  }
  return {
    provider: (fallbackBaseUrl) => configuredSmsProvider(config, fallbackBaseUrl),
    missing: 'SMS_PROVIDER_URL, the SMS_PROVIDER_TOKEN secret or PUBLIC_BASE_URL is missing',
  };
};
