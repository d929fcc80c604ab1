import { parseAllowedHosts } from '../callbacks/allowed-hosts';

/** Configuration of sending SMS and forwarding receipts, read from the environment. */
export interface SmsConfig {
  /** Base URL of the SMS provider's HTTP API (SMS_PROVIDER_URL); unset means SMS is not configured. */
  providerUrl?: string;
  /** Public base URL of this service (PUBLIC_BASE_URL), where the provider posts receipts. */
  publicBaseUrl?: string;
  /** URL of the callbacks queue (CALLBACK_QUEUE_URL). */
  callbackQueueUrl?: string;
  /** Hosts exempt from the public-address rule of callback_url (CALLBACK_ALLOWED_HOSTS). */
  allowedCallbackHosts: string[];
  /** Connect timeout of a receipt forward (CALLBACK_CONNECT_TIMEOUT_MS, default 5000). */
  callbackConnectTimeoutMs: number;
  /** Total timeout of a receipt forward (CALLBACK_TOTAL_TIMEOUT_MS, default 10000). */
  callbackTotalTimeoutMs: number;
}

const milliseconds = (value: string | undefined, fallback: number): number => {
  const parsed = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
};

/**
 * Reads the SMS configuration. Read per invocation (it is cheap), so a local runtime that sets
 * the variables after the module was loaded is honoured.
 */
export const readSmsConfig = (env: NodeJS.ProcessEnv = process.env): SmsConfig => ({
  providerUrl: env.SMS_PROVIDER_URL || undefined,
  publicBaseUrl: env.PUBLIC_BASE_URL || undefined,
  callbackQueueUrl: env.CALLBACK_QUEUE_URL || undefined,
  allowedCallbackHosts: parseAllowedHosts(env.CALLBACK_ALLOWED_HOSTS),
  callbackConnectTimeoutMs: milliseconds(env.CALLBACK_CONNECT_TIMEOUT_MS, 5000),
  callbackTotalTimeoutMs: milliseconds(env.CALLBACK_TOTAL_TIMEOUT_MS, 10_000),
});
