import type { SQSBatchResponse, SQSEvent, SQSRecord, Context } from 'aws-lambda';

/** Processes one queue message; throwing makes that message (only) return to the queue. */
export type RecordProcessor = (record: SQSRecord, context: Context) => Promise<void>;

/**
 * Builds an SQS consumer handler that processes the records of a batch concurrently and
 * reports the failed ones as `batchItemFailures` (the event source mapping is configured with
 * ReportBatchItemFailures), so one bad message never makes the whole batch retry.
 * Each failure is logged as one JSON line with the message id.
 */
export const sqsConsumer =
  (consumerName: string, processRecord: RecordProcessor) =>
  async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    const results = await Promise.allSettled(event.Records.map((record) => processRecord(record, context)));
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    results.forEach((result, index) => {
      if (result.status === 'fulfilled') return;
      const record = event.Records[index]!;
      const reason = result.reason;
      console.error(
        JSON.stringify({
          level: 'ERROR',
          message: 'queue message failed',
          consumer: consumerName,
          messageId: record.messageId,
          receiveCount: Number(record.attributes?.ApproximateReceiveCount ?? 0),
          error: reason instanceof Error ? reason.message : String(reason),
        }),
      );
      batchItemFailures.push({ itemIdentifier: record.messageId });
    });
    return { batchItemFailures };
  };
