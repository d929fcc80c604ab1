import { OutboundError, outboundPost } from '../https/outbound-post';
import { trustedCa } from '../https/trusted-ca';

/** One message handed to the SMS network. */
export interface SmsSubmission {
  /** Our message id; the provider quotes it in the delivery receipt. */
  reference: string;
  /** MSISDN of the SIM (digits), or a buyer's phone number (E.164). */
  to: string;
  text: string;
  /**
   * More to quote in the network's delivery events beside `reference` (AWS End User Messaging's
   * `Context`: the fulfilment's order and effect); the HTTP provider API has no place for it.
   */
  context?: Record<string, string>;
}

/** What the provider answered for an accepted message. */
export interface SmsAccepted {
  providerMessageId: string | null;
}

/** The SMS network, as the domain sees it. */
export interface SmsProvider {
  /** Submits one message; rejects with SmsProviderFailure. */
  submit(message: SmsSubmission): Promise<SmsAccepted>;
}

/** Why a submission failed: the provider refused it (`error`) or could not be reached (`unreachable`). */
export class SmsProviderFailure extends Error {
  /**
   * @param message what happened, for the logs (may name the provider's own answer).
   * @param publicDetail why the provider refused it, in words the API may show its caller (the
   *   502 `sms_provider_error` detail): only adapters that can tell say it.
   */
  constructor(
    readonly kind: 'error' | 'unreachable',
    message: string,
    readonly publicDetail?: string,
  ) {
    super(message);
    this.name = 'SmsProviderFailure';
  }
}

/** Settings of the HTTP provider adapter. */
export interface HttpSmsProviderSettings {
  /** SMS_PROVIDER_URL. */
  baseUrl: string;
  /** Bearer token (the SMS_PROVIDER_TOKEN secret). */
  token: string;
  /** Where the provider posts delivery receipts: `<PUBLIC_BASE_URL>/sms-provider/receipts`. */
  receiptUrl: string;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  /** A PEM file of extra trusted CAs (NODE_EXTRA_CA_CERTS), beside Node's own. */
  extraCaCertificates?: string;
}

/** Response bytes read from the provider. */
const maxResponseBytes = 64 * 1024;

const providerMessageIdOf = (body: Buffer): string | null => {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { provider_message_id?: unknown };
    return typeof parsed.provider_message_id === 'string' ? parsed.provider_message_id : null;
  } catch {
    return null;
  }
};

/**
 * The SMS provider adapter: `POST {SMS_PROVIDER_URL}/messages` as docs/sms-provider-api.md
 * describes, with a 3 s connect and an 8 s total timeout. A 2xx is acceptance; any other
 * status (a 3xx included: redirects are not followed) is `error`; no connection or no answer
 * in time is `unreachable`. This is the one module to change to speak a real aggregator's API.
 */
export const httpSmsProvider = (settings: HttpSmsProviderSettings): SmsProvider => ({
  submit: async (message) => {
    let url: URL;
    try {
      url = new URL(`${settings.baseUrl.replace(/\/+$/, '')}/messages`);
    } catch {
      throw new SmsProviderFailure('unreachable', `SMS_PROVIDER_URL is not a valid URL: ${settings.baseUrl}`);
    }
    const body = JSON.stringify({
      reference: message.reference,
      to: message.to,
      text: message.text,
      receipt_url: settings.receiptUrl,
    });
    let response;
    try {
      response = await outboundPost({
        url,
        headers: {
          authorization: `Bearer ${settings.token}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body,
        connectTimeoutMs: settings.connectTimeoutMs ?? 3000,
        totalTimeoutMs: settings.totalTimeoutMs ?? 8000,
        maxResponseBytes,
        ca: trustedCa(settings.extraCaCertificates),
      });
    } catch (error) {
      const reason = error instanceof OutboundError ? `${error.kind}: ${error.message}` : String(error);
      throw new SmsProviderFailure('unreachable', `SMS provider unreachable (${reason})`);
    }
    if (response.status < 200 || response.status > 299) {
      throw new SmsProviderFailure(
        'error',
        `SMS provider answered ${response.status}: ${response.body.toString('utf8').slice(0, 500)}`,
      );
    }
    return { providerMessageId: providerMessageIdOf(response.body) };
  },
});
