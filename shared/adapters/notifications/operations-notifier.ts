/** A message to the operating team. */
export interface OperationsNotification {
  /** One line, ASCII, at most 100 characters (SNS's limit for e-mail subscriptions). */
  subject: string;
  message: string;
  /** What the notification is, unique per order and effect (`<order id>.operations_notification`). */
  reference: string;
}

/** Tells the operating team that something needs a person (SNS when deployed, an outbox file locally). */
export interface OperationsNotifier {
  /**
   * Publishes one notification. Rejects with NotificationNotSentError when it is certain that
   * nothing was published; any other rejection leaves the outcome unknown.
   */
  notify(notification: OperationsNotification): Promise<{ id: string }>;
  /**
   * Whether a notification with this reference was published, for an adapter that can tell
   * (the local outbox); absent when it cannot (SNS). Resolves with what notify() reported, or undefined.
   */
  findSent?(reference: string): Promise<{ id: string } | undefined>;
}

/** Nothing was published: the service answered with an error, or it never left. */
export class NotificationNotSentError extends Error {
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
    this.name = 'NotificationNotSentError';
  }
}

/** A subject SNS accepts: printable ASCII, one line, at most 100 characters. */
export const snsSubject = (subject: string): string =>
  subject.replace(/[^\x20-\x7e]/g, '?').slice(0, 100).trim() || 'Notification';
