import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { EmailNotSentError, type Mailer } from './mailer';
import { buildEmailMime } from './mime';

/** Settings of the SES adapter. */
export interface SesMailerSettings {
  region: string;
  /** EMAIL_FROM: a verified SES identity (address or an address of a verified domain). */
  from: string;
  messageIdDomain: string;
  /** Optional SES configuration set (EMAIL_CONFIGURATION_SET). */
  configurationSet?: string;
}

const clients = new Map<string, SESv2Client>();

/**
 * True when SES itself answered with an error (throttling, a rejected message, a missing
 * permission): then it did not accept the message. A network failure or a timeout carries no
 * HTTP status, and SES may or may not have accepted the message.
 */
const answeredWithError = (error: unknown): boolean => {
  const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
  return typeof status === 'number' && status >= 400;
};

/**
 * The deployed e-mail adapter: Amazon SES v2 SendEmail with the raw MIME message (so that
 * attachments travel), from EMAIL_FROM. The client is built once per container and region.
 * An error answer from SES is EmailNotSentError; anything else leaves the outcome unknown.
 */
export const sesMailer = (settings: SesMailerSettings): Mailer => ({
  send: async (message) => {
    let client = clients.get(settings.region);
    if (!client) {
      client = new SESv2Client({ region: settings.region });
      clients.set(settings.region, client);
    }
    const mime = buildEmailMime(message, settings, new Date());
    try {
      const result = await client.send(
        new SendEmailCommand({
          FromEmailAddress: settings.from,
          Destination: { ToAddresses: message.to },
          Content: { Raw: { Data: Buffer.from(mime, 'utf8') } },
          ...(settings.configurationSet ? { ConfigurationSetName: settings.configurationSet } : {}),
        }),
      );
      return { id: result.MessageId ?? '' };
    } catch (error) {
      if (answeredWithError(error)) {
        throw new EmailNotSentError(`SES refused the message: ${(error as Error).name}: ${(error as Error).message}`, error);
      }
      throw error;
    }
  },
});
