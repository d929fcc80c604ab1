/** One file attached to an e-mail. */
export interface EmailAttachment {
  filename: string;
  contentType: string;
  content: Uint8Array;
}

/** One e-mail as the domain writes it; the adapter turns it into MIME. */
export interface EmailMessage {
  to: string[];
  subject: string;
  /** The plain-text body. */
  text: string;
  attachments?: EmailAttachment[];
  /**
   * What the message is, unique per order and effect (`<order id>.receipt`): it becomes the
   * Message-ID and the outbox file name, so a person can match a message to its effect.
   */
  reference: string;
}

/** What the adapter reports for a message it handed over. */
export interface EmailSent {
  /** The provider's id (SES MessageId) or the outbox file path. */
  id: string;
}

/** Sends e-mail: SES when deployed, an outbox folder locally (./configured-mailer.ts). */
export interface Mailer {
  /**
   * Sends one message. Rejects with EmailNotSentError when it is certain that nothing was
   * sent (the provider refused it, or it was never handed over); any other rejection leaves
   * the outcome unknown.
   */
  send(message: EmailMessage): Promise<EmailSent>;
  /**
   * Whether a message with this reference was sent, for an adapter that can tell (the local
   * outbox); absent when it cannot (SES). Resolves with what send() reported, or undefined.
   */
  findSent?(reference: string): Promise<EmailSent | undefined>;
}

/** Nothing was sent: the provider answered with an error, or the message never left. */
export class EmailNotSentError extends Error {
  constructor(message: string, override readonly cause?: unknown) {
    super(message);
    this.name = 'EmailNotSentError';
  }
}
