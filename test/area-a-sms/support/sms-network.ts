import type { LocalRuntime } from '../../../local/runtime';

/**
 * The SMS provider the A3/A4 HTTP suites run against: `http` (the provider HTTP API and its
 * simulator) unless SMS_PROVIDER=aws is set in the test process (the `aws-sms` project of
 * vitest.config.ts runs them again so: AWS End User Messaging through the embedded emulator).
 * The handlers read the same variable, so the suites' expectations and the service agree.
 */
export const smsProvider: 'http' | 'aws' = process.env.SMS_PROVIDER === 'aws' ? 'aws' : 'http';

/** The handler environment that points the provider at `url` (a switch in front of the real one). */
export const providerAt = (url: string): Record<string, string> => (smsProvider === 'aws' ? { AWS_SMS_ENDPOINT: url } : { SMS_PROVIDER_URL: url });

/** Where the runtime's own provider stand-in listens: the HTTP simulator, or the AWS emulator's API. */
export const providerTarget = (runtime: LocalRuntime): string =>
  smsProvider === 'aws' ? `${runtime.baseUrl}/_local/aws-sms` : runtime.smsSimulatorUrl;

/** One message as the network was handed it: our message id, the destination MSISDN (digits), the text. */
export interface HandedMessage {
  reference: string;
  to: string;
  text: string;
}

/** Every message the runtime's provider stand-in accepted, oldest first. */
export const handedMessages = async (runtime: LocalRuntime): Promise<HandedMessage[]> => {
  if (smsProvider === 'aws') {
    return runtime.awsSms.messages().map((message) => ({ reference: message.context.message_id ?? '', to: message.destination.replace(/^\+/, ''), text: message.body }));
  }
  const answer = (await (await fetch(`${runtime.smsSimulatorUrl}/messages`)).json()) as { messages: HandedMessage[] };
  return answer.messages.map(({ reference, to, text }) => ({ reference, to, text }));
};

/** The 502 detail of a text with `[provider-error]`, which both stand-ins refuse. */
export const providerErrorDetail =
  smsProvider === 'aws'
    ? 'The SMS provider returned an error: the SMS network refused the message as invalid (the destination number or the text) (ValidationException).'
    : 'The SMS provider returned an error.';
