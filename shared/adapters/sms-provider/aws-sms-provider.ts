import { PinpointSMSVoiceV2Client, SendTextMessageCommand } from '@aws-sdk/client-pinpoint-sms-voice-v2';
import type { SdkSettings } from '../aws/sdk-settings';
import { SmsProviderFailure, type SmsProvider } from './provider';

/** Settings of the AWS End User Messaging SMS adapter (SMS_PROVIDER=aws). */
export interface AwsSmsProviderSettings {
  /** AWS_REGION. */
  region: string;
  /** The SDK settings of the configuration (../aws/sdk-settings.ts); absent: the client looks them up. */
  sdkSettings?: SdkSettings;
  /** AWS_SMS_ENDPOINT: an API that speaks the PinpointSMSVoiceV2 JSON protocol (the local emulator); unset: AWS itself. */
  endpoint?: string;
  /** SMS_ORIGINATION_IDENTITY: phone number, pool or sender ID (ID or ARN) the SMS are sent from. */
  originationIdentity: string;
  /** SMS_CONFIGURATION_SET: the configuration set whose event destination publishes the delivery events. */
  configurationSet: string;
  /** Connect timeout per attempt (default 2 s). */
  connectTimeoutMs?: number;
  /** Whole-request timeout per attempt (default 3 s). */
  requestTimeoutMs?: number;
  /** Attempts, the SDK's retries included (default 3, the SDK's standard). */
  maxAttempts?: number;
}

/**
 * `DestinationPhoneNumber` of an MSISDN or a buyer's phone number: E.164, `+` and its digits
 * (the SIM's MSISDN is stored without `+`; a storefront phone may hold spaces). Empty when the
 * number holds no digit.
 */
export const e164 = (number: string): string => {
  const digits = number.replace(/\D/g, '');
  return digits ? `+${digits}` : '';
};

/** An SDK error as far as the mapping reads it. */
interface AwsError {
  name?: string;
  Reason?: string;
  $metadata?: { httpStatusCode?: number };
}

/** Reasons of ConflictException, ValidationException and the other refusals, in words a developer can act on. */
const reasonWords: Record<string, string> = {
  DESTINATION_PHONE_NUMBER_OPTED_OUT: 'the destination number has opted out of SMS from this sender; it must opt in again before it can be messaged',
  DESTINATION_PHONE_NUMBER_NOT_VERIFIED:
    'the SMS account is in the sandbox and the destination number is not one of its verified destination numbers',
  DESTINATION_COUNTRY_BLOCKED_BY_PROTECT_CONFIGURATION: "the destination country is blocked by the account's protect configuration",
  DESTINATION_PHONE_NUMBER_BLOCKED_BY_PROTECT_NUMBER_OVERRIDE: "the destination number is blocked by the account's protect configuration",
  DESTINATION_COUNTRY_BLOCKED: 'SMS to the destination country are blocked for this account',
  INVALID_IDENTITY_FOR_DESTINATION_COUNTRY: "the service's origination identity cannot send to the destination country",
  MONTHLY_SPEND_LIMIT_REACHED_FOR_TEXT: "the account's monthly SMS spend limit is reached; the operator must raise it (or wait for next month)",
  ACCOUNT_DISABLED: 'the SMS account is disabled',
  INSUFFICIENT_ACCOUNT_REPUTATION: 'the SMS account may not send at the moment (insufficient account reputation)',
  RESOURCE_NOT_ACTIVE: "the service's origination identity or configuration set is not active",
  NO_ORIGINATION_IDENTITIES_FOUND: 'no origination identity of the account can send to the destination',
  MESSAGE_TYPE_MISMATCH: "the service's origination identity does not send transactional messages",
};

/** What an error class means, when its reason is not one of `reasonWords`. */
const errorWords: Record<string, string> = {
  ThrottlingException: 'the SMS network is throttling the service; retry later',
  ServiceQuotaExceededException: 'an SMS quota of the account is used up; retry later or ask the operator to raise it',
  ConflictException: "the SMS network refused the message in the account's current state",
  ValidationException: 'the SMS network refused the message as invalid (the destination number or the text)',
  AccessDeniedException: 'the service may not send SMS; the operator must check its permissions and the account',
  ResourceNotFoundException: "the service's origination identity or configuration set does not exist; the operator must check SMS_ORIGINATION_IDENTITY and SMS_CONFIGURATION_SET",
  InternalServerException: 'the SMS network failed; retry later',
};

/**
 * The detail of an error answer of PinpointSMSVoiceV2, safe to show the caller of the API
 * (our own words, the error class and its reason; never the API's message, which may name the
 * account): e.g. `the destination number has opted out of SMS from this sender; it must opt in
 * again before it can be messaged (ConflictException: DESTINATION_PHONE_NUMBER_OPTED_OUT)`.
 */
export const awsRefusalDetail = (error: AwsError): string => {
  const status = error.$metadata?.httpStatusCode;
  const name = error.name && /^[A-Za-z]{1,64}$/.test(error.name) ? error.name : `HTTP ${status ?? 'error'}`;
  const reason = error.Reason && /^[A-Z0-9_]{1,80}$/.test(error.Reason) ? error.Reason : undefined;
  const words =
    (reason && Object.hasOwn(reasonWords, reason) ? reasonWords[reason] : undefined) ??
    (Object.hasOwn(errorWords, name) ? errorWords[name] : undefined) ??
    (status !== undefined && status >= 500 ? 'the SMS network failed; retry later' : 'the SMS network refused the message');
  return `${words} (${[name, reason].filter(Boolean).join(': ')})`;
};

/**
 * The AWS End User Messaging SMS adapter (API PinpointSMSVoiceV2; LOCAL-CONTRACT.md, "SMS
 * through AWS End User Messaging"): one `SendTextMessage` per SMS, from the configured
 * origination identity through the configured configuration set (whose event destination
 * publishes the delivery events), `MessageType` TRANSACTIONAL, the destination in E.164, and
 * `Context` carrying `message_id` (and whatever else the caller passes) so that each delivery
 * event names its message. Resolves with the API's MessageId, which the caller stores.
 *
 * The client is built here, once: call this at a function's init. Failures, after the SDK's
 * own retries (throttling and 5xx are retried; 2 s to connect and 3 s per attempt, 3 attempts):
 * an error answer of the API is `error`, with a detail a developer can act on
 * (`awsRefusalDetail`); no answer at all (no connection, a timeout) is `unreachable`.
 */
export const awsSmsProvider = (settings: AwsSmsProviderSettings): SmsProvider => {
  const client = new PinpointSMSVoiceV2Client({
    region: settings.region,
    ...settings.sdkSettings,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
    maxAttempts: settings.maxAttempts ?? 3,
    requestHandler: {
      connectionTimeout: settings.connectTimeoutMs ?? 2000,
      requestTimeout: settings.requestTimeoutMs ?? 3000,
      throwOnRequestTimeout: true,
    },
  });
  return {
    submit: async (message) => {
      const destination = e164(message.to);
      if (!destination) throw new SmsProviderFailure('error', `not a phone number: ${JSON.stringify(message.to)}`, 'the destination is not a phone number');
      let answer;
      try {
        answer = await client.send(
          new SendTextMessageCommand({
            DestinationPhoneNumber: destination,
            OriginationIdentity: settings.originationIdentity,
            ConfigurationSetName: settings.configurationSet,
            MessageBody: message.text,
            MessageType: 'TRANSACTIONAL',
            Context: { ...message.context, message_id: message.reference },
          }),
        );
      } catch (error) {
        const failure = error as AwsError & Error;
        if (failure.$metadata?.httpStatusCode !== undefined) {
          const detail = awsRefusalDetail(failure);
          throw new SmsProviderFailure('error', `SendTextMessage answered ${failure.$metadata.httpStatusCode}: ${failure.name}: ${failure.message}`, detail);
        }
        throw new SmsProviderFailure('unreachable', `SMS network unreachable (${failure.name ?? 'Error'}: ${failure.message})`);
      }
      return { providerMessageId: answer.MessageId ?? null };
    },
  };
};
