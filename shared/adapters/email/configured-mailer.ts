import type { Mailer } from './mailer';
import { outboxMailer } from './outbox-mailer';
import { sesMailer } from './ses-mailer';

/** The sender when EMAIL_FROM is not set (local outbox only; `.invalid` never resolves). */
export const defaultLocalSender = 'Storefront <orders@storefront.invalid>';

/** The domain of an address such as `Name <orders@example.com>` (for Message-IDs). */
export const addressDomain = (from: string): string => {
  const match = /@([^>\s]+)>?\s*$/.exec(from);
  return match?.[1] ?? 'localhost';
};

/** The e-mail settings of a function's configuration (shared/config/function-config.ts). */
export interface MailerConfig {
  /** AWS region of SES. */
  region: string;
  /** EMAIL_OUTBOX_DIR. */
  emailOutboxDir?: string;
  /** EMAIL_FROM. */
  emailFrom?: string;
  /** EMAIL_CONFIGURATION_SET. */
  emailConfigurationSet?: string;
}

/**
 * The e-mail adapter of this environment: the local outbox when EMAIL_OUTBOX_DIR is set (the
 * local runtime always sets it), else SES from EMAIL_FROM; undefined when neither is
 * configured. Built once per container from the configuration read at init.
 */
export const configuredMailer = (config: MailerConfig): Mailer | undefined => {
  const outbox = config.emailOutboxDir;
  const from = config.emailFrom;
  if (outbox) {
    const sender = from ?? defaultLocalSender;
    return outboxMailer({ directory: outbox, from: sender, messageIdDomain: addressDomain(sender) });
  }
  if (from) {
    return sesMailer({
      region: config.region,
      from,
      messageIdDomain: addressDomain(from),
      configurationSet: config.emailConfigurationSet,
    });
  }
  return undefined;
};
