import { readConfig } from '../../config/env';
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

/**
 * The e-mail adapter of this environment: the local outbox when EMAIL_OUTBOX_DIR is set (the
 * local runtime always sets it), else SES from EMAIL_FROM; undefined when neither is
 * configured. Read per call: cheap, and a local runtime may set the variables late.
 */
export const configuredMailer = (env: NodeJS.ProcessEnv = process.env): Mailer | undefined => {
  const outbox = env.EMAIL_OUTBOX_DIR || undefined;
  const from = env.EMAIL_FROM || undefined;
  if (outbox) {
    const sender = from ?? defaultLocalSender;
    return outboxMailer({ directory: outbox, from: sender, messageIdDomain: addressDomain(sender) });
  }
  if (from) {
    return sesMailer({
      region: readConfig(env).region,
      from,
      messageIdDomain: addressDomain(from),
      configurationSet: env.EMAIL_CONFIGURATION_SET || undefined,
    });
  }
  return undefined;
};
