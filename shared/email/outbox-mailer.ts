import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EmailNotSentError, type Mailer } from './mailer';
import { buildEmailMime } from './mime';

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

/** `20261122T100000123Z` */
const compactStamp = (date: Date): string => date.toISOString().replace(/[-:.]/g, '');

/**
 * The local e-mail adapter: each message becomes one `.eml` file (the exact RFC 5322 / MIME
 * text SES would send) in EMAIL_OUTBOX_DIR, named `<time>-<reference>-<random>.eml`, so that a
 * person opens in a mail client what the buyer would receive, and a repeated send shows up as
 * a second file instead of overwriting the first.
 */
export const outboxMailer = (settings: OutboxMailerSettings): Mailer => ({
  send: async (message) => {
    const now = settings.now?.() ?? new Date();
    const mime = buildEmailMime(message, settings, now);
    const reference = message.reference.replace(/[^A-Za-z0-9._-]/g, '_');
    const file = join(settings.directory, `${compactStamp(now)}-${reference}-${randomBytes(3).toString('hex')}.eml`);
    try {
      await mkdir(settings.directory, { recursive: true });
      await writeFile(file, mime, { flag: 'wx' });
    } catch (error) {
      throw new EmailNotSentError(`the outbox file ${file} could not be written: ${(error as Error).message}`, error);
    }
    return { id: file };
  },
});
