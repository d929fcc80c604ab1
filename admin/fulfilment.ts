import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { prepareEffectResend, prepareReviewedOrder } from '../shared/fulfilment/manual-actions';
import type { FulfilmentMessage } from '../shared/fulfilment/message';
import { UsageError, type AdminCommand, type AdminIo, type CommandOptions } from './command';
import { sqsClientOf } from './sqs-client';

/** The admin commands of fulfilment: the manual steps of the runbook (issue #14, docs/operations.md). */
export const fulfilmentCommands: Record<string, AdminCommand> = {};

/**
 * Puts a payment event on the fulfilment queue when `--queue-url` is given (`--sqs-endpoint`
 * for the local SQS emulator), else prints the body and the aws CLI command that sends it.
 */
const queuePayment = async (message: FulfilmentMessage, options: CommandOptions, io: AdminIo): Promise<void> => {
  const body = JSON.stringify(message);
  if (!options.queueUrl) {
    io.err('Put this payment event on the fulfilment queue (output FulfilmentQueueUrl) to let fulfil-order work on the order:');
    io.out(`aws sqs send-message --queue-url <FulfilmentQueueUrl> --message-body '${body}'`);
    return;
  }
  const client = sqsClientOf(options, io);
  try {
    await client.send(new SendMessageCommand({ QueueUrl: options.queueUrl, MessageBody: body }));
  } finally {
    client.destroy();
  }
  io.out(`Queued ${message.event_id} for order ${message.order_id}`);
};

/** `resend-effect ORDER_ID --effect EFFECT`: docs/operations.md, effect-outcome-unknown. */
fulfilmentCommands['resend-effect'] = async (deps, argument, options, io) => {
  if (!argument || !options.effect) throw new UsageError('resend-effect needs ORDER_ID and --effect EFFECT');
  const message = await prepareEffectResend({ ...deps, now: () => new Date() }, argument, options.effect);
  io.err(`Effect ${options.effect} of order ${argument} cleared and the order moved back to paid.`);
  await queuePayment(message, options, io);
};

/** `resume-order ORDER_ID`: docs/operations.md, order-flagged-for-review. */
fulfilmentCommands['resume-order'] = async (deps, argument, options, io) => {
  if (!argument) throw new UsageError('resume-order needs ORDER_ID');
  const message = await prepareReviewedOrder({ ...deps, now: () => new Date() }, argument);
  io.err(`Order ${argument} moved from review_required to paid.`);
  await queuePayment(message, options, io);
};
