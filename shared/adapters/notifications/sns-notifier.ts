import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { NotificationNotSentError, snsSubject, type OperationsNotifier } from './operations-notifier';

const clients = new Map<string, SNSClient>();

/**
 * The deployed operations notifier: SNS Publish to OPERATIONS_TOPIC_ARN (the stack subscribes
 * the operating team's e-mail address). The client is built once per container and region.
 * An error answer from SNS is NotificationNotSentError; anything else leaves the outcome unknown.
 */
export const snsNotifier = (settings: { region: string; topicArn: string }): OperationsNotifier => ({
  notify: async (notification) => {
    let client = clients.get(settings.region);
    if (!client) {
      client = new SNSClient({ region: settings.region });
      clients.set(settings.region, client);
    }
    try {
      const result = await client.send(
        new PublishCommand({ TopicArn: settings.topicArn, Subject: snsSubject(notification.subject), Message: notification.message }),
      );
      return { id: result.MessageId ?? '' };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
      if (typeof status === 'number' && status >= 400) {
        throw new NotificationNotSentError(`SNS refused the notification: ${(error as Error).name}: ${(error as Error).message}`, error);
      }
      throw error;
    }
  },
});
