import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { feedMessagesPerCall, type FeedMessageDraft } from '../shared/feed/messages';

/**
 * Sends feed messages (shared/feed/messages.ts) to the operator-feed queue, `feedMessagesPerCall`
 * a SendMessageBatch call, each with its `first_line` attribute; entries SQS failed are sent
 * again (up to 8 tries, backing off), and `onSent` is told of every message once SQS has it, in
 * order, so a caller can say from which line a stopped run goes on. The admin CLI's `feed` and
 * the local `POST /_local/feed` send through it.
 */
export const sendFeedMessages = async (
  sqs: SQSClient,
  queueUrl: string,
  drafts: Iterable<FeedMessageDraft> | AsyncIterable<FeedMessageDraft>,
  onSent: (draft: FeedMessageDraft) => void = () => {},
): Promise<number> => {
  let sent = 0;
  let call: FeedMessageDraft[] = [];
  const flush = async () => {
    let pending = call.map((draft, index) => ({ draft, id: String(index) }));
    for (let attempt = 1; pending.length > 0; attempt += 1) {
      if (attempt > 8) throw new Error(`SQS kept refusing ${pending.length} feed messages (from line ${pending[0]!.draft.firstLine})`);
      if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** attempt, 5_000)));
      const output = await sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: pending.map(({ draft, id }) => ({
            Id: id,
            MessageBody: draft.body,
            MessageAttributes: { first_line: { DataType: 'Number', StringValue: String(draft.firstLine) } },
          })),
        }),
      );
      const failed = new Set((output.Failed ?? []).map((entry) => entry.Id));
      const senderFault = (output.Failed ?? []).find((entry) => entry.SenderFault);
      if (senderFault) throw new Error(`SQS refused a feed message: ${senderFault.Code ?? ''} ${senderFault.Message ?? ''}`.trim());
      pending = pending.filter(({ id }) => failed.has(id));
    }
    for (const draft of call) {
      sent += 1;
      onSent(draft);
    }
    call = [];
  };
  for await (const draft of drafts) {
    call.push(draft);
    if (call.length === feedMessagesPerCall) await flush();
  }
  if (call.length > 0) await flush();
  return sent;
};
