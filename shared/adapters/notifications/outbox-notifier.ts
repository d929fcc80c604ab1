import { findOutboxFile, writeOutboxFile } from '../email/outbox-files';
import { NotificationNotSentError, snsSubject, type OperationsNotifier } from './operations-notifier';

/**
 * The local operations notifier: each notification becomes one JSON file
 * `{ topic, subject, message, reference, sent_at }` in `<directory>` (the local runtime's
 * `<EMAIL_OUTBOX_DIR>/operations/`), named `<time>-<reference>-<random>.json`, so a repeat
 * shows as a second file. A file appears complete or not at all (written, then renamed), so
 * `findSent` can tell whether a notification was published.
 */
export const outboxNotifier = (settings: { directory: string; now?: () => Date }): OperationsNotifier => ({
  notify: async (notification) => {
    const now = settings.now?.() ?? new Date();
    const body = {
      topic: 'operations',
      subject: snsSubject(notification.subject),
      message: notification.message,
      reference: notification.reference,
      sent_at: now.toISOString(),
    };
    try {
      return { id: await writeOutboxFile(settings.directory, now, notification.reference, 'json', `${JSON.stringify(body, null, 2)}\n`) };
    } catch (error) {
      throw new NotificationNotSentError(
        `the notification file for ${notification.reference} could not be written: ${(error as Error).message}`,
        error,
      );
    }
  },
  findSent: async (reference) => {
    const file = await findOutboxFile(settings.directory, reference, 'json');
    return file === undefined ? undefined : { id: file };
  },
});
