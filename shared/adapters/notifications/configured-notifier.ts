import { join } from 'node:path';
import type { OperationsNotifier } from './operations-notifier';
import { outboxNotifier } from './outbox-notifier';
import { snsNotifier } from './sns-notifier';

/** Sub-folder of EMAIL_OUTBOX_DIR that the local notifier writes to (unless OPERATIONS_OUTBOX_DIR says otherwise). */
export const operationsOutboxFolder = 'operations';

/** The notification settings of a function's configuration (shared/config/function-config.ts). */
export interface NotifierConfig {
  /** AWS region of SNS. */
  region: string;
  /** OPERATIONS_TOPIC_ARN. */
  operationsTopicArn?: string;
  /** OPERATIONS_OUTBOX_DIR. */
  operationsOutboxDir?: string;
  /** EMAIL_OUTBOX_DIR. */
  emailOutboxDir?: string;
}

/**
 * The operations notifier of this environment: SNS when OPERATIONS_TOPIC_ARN is set (the
 * deployed stack), else a local outbox folder (OPERATIONS_OUTBOX_DIR, or `operations/` under
 * EMAIL_OUTBOX_DIR); undefined when none is configured. Built once per container.
 */
export const configuredNotifier = (config: NotifierConfig): OperationsNotifier | undefined => {
  if (config.operationsTopicArn) return snsNotifier({ region: config.region, topicArn: config.operationsTopicArn });
  const directory =
    config.operationsOutboxDir ?? (config.emailOutboxDir ? join(config.emailOutboxDir, operationsOutboxFolder) : undefined);
  return directory ? outboxNotifier({ directory }) : undefined;
};
