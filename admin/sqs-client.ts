import { SQSClient } from '@aws-sdk/client-sqs';
import type { AdminIo, CommandOptions } from './command';

/** An SQS client for --queue-url (--sqs-endpoint: the local SQS emulator, with its fixed credentials unless some are set). */
export const sqsClientOf = (options: CommandOptions, io: AdminIo): SQSClient => {
  const local = options.sqsEndpoint && !io.env.AWS_ACCESS_KEY_ID && !io.env.AWS_PROFILE;
  return new SQSClient({
    ...(options.region ? { region: options.region } : {}),
    ...(options.sqsEndpoint ? { endpoint: options.sqsEndpoint } : {}),
    ...(local ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
};
