import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { AwsConfig, SdkSettingKey } from '../config/function-config';
import { correlationAttributes } from '../observability/queue-correlation';
import { sqsClient } from '../queues/sqs-client';

/** The delivery receipt posted to callback_url (spec "Delivery receipt"), exactly these fields. */
export interface DeliveryReceipt {
  message_id: string;
  iccid: string;
  msisdn: string;
  status: 'delivered' | 'expired' | 'failed';
  received_at: string;
}

/** One message of the callbacks queue: a receipt, where to post it, and whose secret signs it. */
export interface QueuedReceipt {
  receipt: DeliveryReceipt;
  callback_url: string;
  /** Customer of the API key that sent the SMS. */
  customer_id: string;
}

/** Puts receipts onto the callbacks queue. */
export interface ReceiptQueue {
  enqueue(item: QueuedReceipt): Promise<void>;
}


/**
 * The callbacks queue over SQS (SendMessage to CALLBACK_QUEUE_URL), with the correlation ids
 * of the request in progress as message attributes. The client is built once per container;
 * locally it points at the SQS emulator.
 */
export const sqsReceiptQueue = (config: Pick<AwsConfig, 'region' | 'sqsEndpoint' | SdkSettingKey>, queueUrl: string): ReceiptQueue => ({
  enqueue: async (item) => {
    await sqsClient(config).send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(item), MessageAttributes: correlationAttributes() }),
    );
  },
});

const receiptStatuses = ['delivered', 'expired', 'failed'];

/** Parses a callbacks-queue message body; throws when it is not a QueuedReceipt. */
export const parseQueuedReceipt = (body: string): QueuedReceipt => {
  const parsed = JSON.parse(body) as Partial<QueuedReceipt>;
  const receipt = parsed?.receipt as Partial<DeliveryReceipt> | undefined;
  const strings = [receipt?.message_id, receipt?.iccid, receipt?.msisdn, receipt?.received_at, parsed?.callback_url, parsed?.customer_id];
  if (!receipt || strings.some((value) => typeof value !== 'string') || !receiptStatuses.includes(String(receipt.status))) {
    throw new Error('malformed callbacks queue message');
  }
  return {
    receipt: {
      message_id: receipt.message_id!,
      iccid: receipt.iccid!,
      msisdn: receipt.msisdn!,
      status: receipt.status as DeliveryReceipt['status'],
      received_at: receipt.received_at!,
    },
    callback_url: parsed.callback_url!,
    customer_id: parsed.customer_id!,
  };
};
