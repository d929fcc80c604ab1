import { NotificationNotSentError, snsSubject, type OperationsNotifier } from './operations-notifier';
import type * as SnsPublish from './sns-publish';

/**
 * Set by the functions' bundling (infra/bundling.ts `sideModules`) to `"./sns-publish.mjs"`:
 * there the SNS client is a file of its own beside the bundle. Undeclared under tsx and
 * vitest, where the source is imported.
 */
declare const SNS_PUBLISH_FILE: string | undefined;

/** The SNS publisher, loaded on the first notification only (see ./sns-publish.ts). */
const loadPublisher = async (): Promise<typeof SnsPublish> =>
  typeof SNS_PUBLISH_FILE === 'string' ? await import(new URL(SNS_PUBLISH_FILE, import.meta.url).href) : await import('./sns-publish');

/**
 * The deployed operations notifier: SNS Publish to OPERATIONS_TOPIC_ARN (the stack subscribes
 * the operating team's e-mail address). The client is built once per container and region, on
 * the first notification. An error answer from SNS is NotificationNotSentError; anything else
 * leaves the outcome unknown.
 */
export const snsNotifier = (settings: { region: string; topicArn: string }): OperationsNotifier => ({
  notify: async (notification) => {
    const { publishToSns } = await loadPublisher();
    try {
      const id = await publishToSns({
        region: settings.region,
        topicArn: settings.topicArn,
        subject: snsSubject(notification.subject),
        body: notification.message,
      });
      return { id };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
      if (typeof status === 'number' && status >= 400) {
        throw new NotificationNotSentError(`SNS refused the notification: ${(error as Error).name}: ${(error as Error).message}`, error);
      }
      throw error;
    }
  },
});
