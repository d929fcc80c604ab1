import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';

const clients = new Map<string, SNSClient>();

/**
 * One SNS Publish, with the client built once per container and region. A module of its own
 * so that the bundles load the SNS client only when a notification is sent (a side file,
 * infra/bundling.ts `sideModules`): fulfil-order notifies the operating team for physical
 * orders and reviews only, and the client is about 21 KiB of its cold start (issue #11).
 * Resolves with SNS's message id; rejects with the SDK's error.
 */
export const publishToSns = async (message: { region: string; topicArn: string; subject: string; body: string }): Promise<string> => {
  let client = clients.get(message.region);
  if (!client) {
    client = new SNSClient({ region: message.region });
    clients.set(message.region, client);
  }
  const result = await client.send(new PublishCommand({ TopicArn: message.topicArn, Subject: message.subject, Message: message.body }));
  return result.MessageId ?? '';
};
