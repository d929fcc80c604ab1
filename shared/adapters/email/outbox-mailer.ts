import { EmailNotSentError, type Mailer } from './mailer';
import { buildEmailMime } from './mime';
import { findOutboxFile, writeOutboxFile } from './outbox-files';

/** Settings of the local outbox. */
export interface OutboxMailerSettings {
  /** EMAIL_OUTBOX_DIR. */
  directory: string;
  /** EMAIL_FROM. */
  from: string;
  /** Domain of the Message-ID. */
  messageIdDomain: string;
  now?: () => Date;
}

/**
 * The local e-mail adapter: each message becomes one `.eml` file (the exact RFC 5322 / MIME
 * text SES would send) in EMAIL_OUTBOX_DIR, named `<time>-<reference>-<random>.eml`, so that a
 * person opens in a mail client what the buyer would receive, and a repeated send shows up as
 * a second file instead of overwriting the first. A file appears complete or not at all
 * (written, then renamed), so `findSent` can tell whether a message was sent.
 */
export const outboxMailer = (settings: OutboxMailerSettings): Mailer => ({
  send: async (message) => {
    const now = settings.now?.() ?? new Date();
    const mime = buildEmailMime(message, settings, now);
    try {
      return { id: await writeOutboxFile(settings.directory, now, message.reference, 'eml', mime) };
    } catch (error) {
      throw new EmailNotSentError(`the outbox file for ${message.reference} could not be written: ${(error as Error).message}`, error);
    }
  },
  findSent: async (reference) => {
    const file = await findOutboxFile(settings.directory, reference, 'eml');
    return file === undefined ? undefined : { id: file };
  },
});
