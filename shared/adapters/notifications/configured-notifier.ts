import { join } from 'node:path';
import { readConfig } from '../../config/env';
import type { OperationsNotifier } from './operations-notifier';
import { outboxNotifier } from './outbox-notifier';
import { snsNotifier } from './sns-notifier';

/** Sub-folder of EMAIL_OUTBOX_DIR that the local notifier writes to (unless OPERATIONS_OUTBOX_DIR says otherwise). */
export const operationsOutboxFolder = 'operations';

/**
 * The operations notifier of this environment: SNS when OPERATIONS_TOPIC_ARN is set (the
 * deployed stack), else a local outbox folder (OPERATIONS_OUTBOX_DIR, or `operations/` under
 * EMAIL_OUTBOX_DIR); undefined when none is configured.
 */
export const configuredNotifier = (env: NodeJS.ProcessEnv = process.env): OperationsNotifier | undefined => {
  if (env.OPERATIONS_TOPIC_ARN) return snsNotifier({ region: readConfig(env).region, topicArn: env.OPERATIONS_TOPIC_ARN });
  const directory = env.OPERATIONS_OUTBOX_DIR || (env.EMAIL_OUTBOX_DIR ? join(env.EMAIL_OUTBOX_DIR, operationsOutboxFolder) : undefined);
  return directory ? outboxNotifier({ directory }) : undefined;
};
