import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NotificationNotSentError, snsSubject, type OperationsNotifier } from './operations-notifier';

/**
 * The local operations notifier: each notification becomes one JSON file
 * `{ topic, subject, message, reference, sent_at }` in `<directory>` (the local runtime's
 * `<EMAIL_OUTBOX_DIR>/operations/`), named `<time>-<reference>-<random>.json`, so a repeat
 * shows as a second file.
 */
export const outboxNotifier = (settings: { directory: string; now?: () => Date }): OperationsNotifier => ({
  notify: async (notification) => {
    const now = settings.now?.() ?? new Date();
    const stamp = now.toISOString().replace(/[-:.]/g, '');
    const reference = notification.reference.replace(/[^A-Za-z0-9._-]/g, '_');
    const file = join(settings.directory, `${stamp}-${reference}-${randomBytes(3).toString('hex')}.json`);
    const body = {
      topic: 'operations',
      subject: snsSubject(notification.subject),
      message: notification.message,
      reference: notification.reference,
      sent_at: now.toISOString(),
    };
    try {
      await mkdir(settings.directory, { recursive: true });
      await writeFile(file, `${JSON.stringify(body, null, 2)}\n`, { flag: 'wx' });
    } catch (error) {
      throw new NotificationNotSentError(`the notification file ${file} could not be written: ${(error as Error).message}`, error);
    }
    return { id: file };
  },
});
