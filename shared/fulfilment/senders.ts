import { EmailNotSentError, type EmailMessage } from '../adapters/email/mailer';
import { NotificationNotSentError, type OperationsNotification } from '../adapters/notifications/operations-notifier';
import { SmsProviderFailure } from '../adapters/sms-provider/provider';
import type { FulfilmentDeps } from './deps';
import type { MessageEffect, SendFailure } from './effects';

/** An adapter that is not configured in this environment. */
export class NotConfiguredError extends Error {
  constructor(what: string) {
    super(`${what} is not configured in this environment`);
    this.name = 'NotConfiguredError';
  }
}

/** The message could not be built (e.g. the invoice PDF): nothing was sent. */
export class MessagePreparationError extends Error {
  constructor(override readonly cause: unknown) {
    super(`the message could not be prepared: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'MessagePreparationError';
  }
}

const is = (error: unknown, name: string) => (error as Error | undefined)?.name === name;

/**
 * E-mail failures: refused by SES, an outbox file not written, no mailer configured, or a
 * message that could not be built are certainly not sent (retried through the queue, then
 * the dead-letter queue); anything else (a timeout) may have been sent.
 */
const classifyEmailFailure = (error: unknown): SendFailure =>
  is(error, 'EmailNotSentError') || error instanceof EmailNotSentError || is(error, 'NotConfiguredError') || is(error, 'MessagePreparationError')
    ? 'not_sent'
    : 'unknown';

/**
 * SMS failures: no provider configured, or the provider refused the message (an answer other
 * than 2xx), are certainly not sent and not retried (an SMS is a courtesy beside the
 * receipt e-mail; a refused number stays refused); an unreachable provider (which includes a
 * timeout after the provider may have taken it) may have sent it.
 */
const classifySmsFailure = (error: unknown): SendFailure => {
  if (is(error, 'NotConfiguredError')) return 'failed';
  if (error instanceof SmsProviderFailure || is(error, 'SmsProviderFailure')) {
    return (error as SmsProviderFailure).kind === 'error' ? 'failed' : 'unknown';
  }
  return 'unknown';
};

/** Notification failures: like e-mail (the operating team must hear of the order). */
const classifyNotificationFailure = (error: unknown): SendFailure =>
  error instanceof NotificationNotSentError || is(error, 'NotificationNotSentError') || is(error, 'NotConfiguredError')
    ? 'not_sent'
    : 'unknown';

/** An e-mail effect: `prepare` builds the message (a PDF may be rendered) before it goes to the mailer. */
export const emailEffect = (deps: FulfilmentDeps, name: string, prepare: () => Promise<EmailMessage> | EmailMessage): MessageEffect => ({
  name,
  classify: classifyEmailFailure,
  send: async () => {
    const mailer = deps.mailer();
    if (!mailer) throw new NotConfiguredError('e-mail (EMAIL_FROM or EMAIL_OUTBOX_DIR)');
    let message: EmailMessage;
    try {
      message = await prepare();
    } catch (error) {
      throw new MessagePreparationError(error);
    }
    const sent = await mailer.send(message);
    return { id: sent.id, to: message.to, subject: message.subject };
  },
  findSent: async () => {
    const mailer = deps.mailer();
    if (!mailer?.findSent) return undefined;
    const message = await prepare();
    const sent = await mailer.findSent(message.reference);
    return sent ? { id: sent.id, to: message.to, subject: message.subject } : false;
  },
});

/**
 * An SMS effect through the SMS provider adapter; `reference` is `<order id>.<effect>`. With
 * AWS End User Messaging the order id and the effect travel in the message's `Context`, so its
 * delivery events are recorded on the effect (shared/sms/delivery-events.ts; no callback).
 */
export const smsEffect = (deps: FulfilmentDeps, name: string, to: string, text: string, reference: string, orderId: string): MessageEffect => ({
  name,
  classify: classifySmsFailure,
  send: async () => {
    const provider = await deps.smsProvider();
    if (!provider) throw new NotConfiguredError('SMS (SMS_PROVIDER_URL, SMS_PROVIDER_TOKEN and PUBLIC_BASE_URL; or SMS_PROVIDER=aws with SMS_ORIGINATION_IDENTITY and SMS_CONFIGURATION_SET)');
    const accepted = await provider.submit({ reference, to, text, context: { order_id: orderId, effect: name } });
    return { provider_message_id: accepted.providerMessageId, to, reference };
  },
});

/** The operations notification effect. */
export const notificationEffect = (deps: FulfilmentDeps, name: string, notification: OperationsNotification): MessageEffect => ({
  name,
  classify: classifyNotificationFailure,
  send: async () => {
    const notifier = deps.notifier();
    if (!notifier) throw new NotConfiguredError('the operations notification (OPERATIONS_TOPIC_ARN or EMAIL_OUTBOX_DIR)');
    const sent = await notifier.notify(notification);
    return { id: sent.id, subject: notification.subject };
  },
  findSent: async () => {
    const notifier = deps.notifier();
    if (!notifier?.findSent) return undefined;
    const sent = await notifier.findSent(notification.reference);
    return sent ? { id: sent.id, subject: notification.subject } : false;
  },
});
