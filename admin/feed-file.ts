import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { listFeedRejections } from '../shared/feed/journal';
import { feedCutter, type FeedMessageDraft } from '../shared/feed/messages';
import { sendFeedMessages } from '../local/feed-sender';
import { barOf, formatCount, progressBar, type ProgressOutput } from './progress-bar';

/**
 * The admin CLI's operator feed commands (issue #20; docs/feed.md): `feed FILE --queue-url URL
 * [--from-line N]` sends a JSON Lines file of any size to the operator-feed queue, and
 * `feed-rejections [--limit N]` lists the refused lines the consumer kept.
 */

/** A feed upload's progress: bytes of the file read, lines and messages sent. */
export interface FeedProgress {
  phase: 'sending';
  bytesRead: number;
  bytesTotal: number;
  linesSent: number;
  messagesSent: number;
}

/** `[######----]  42% sending 420,000 lines in 1,400 messages (12.0 of 28.6 MiB)`. */
export const feedProgressLine = (progress: FeedProgress): string =>
  `${barOf(progress.bytesRead, progress.bytesTotal)} sending ${formatCount(progress.linesSent)} lines in ${formatCount(progress.messagesSent)} message${progress.messagesSent === 1 ? '' : 's'} (${(progress.bytesRead / 1048576).toFixed(1)} of ${(progress.bytesTotal / 1048576).toFixed(1)} MiB)`;

/** A feed upload that stopped: the line a new run goes on from (`--from-line`). */
export class FeedUploadStopped extends Error {
  constructor(
    readonly resumeLine: number,
    cause: Error,
  ) {
    super(`${cause.message}; every line before ${resumeLine} is on the queue: run again with --from-line ${resumeLine}`, { cause });
    this.name = 'FeedUploadStopped';
  }
}

/** What `feed` did. */
export interface FeedUpload {
  lines: number;
  messages: number;
  firstLine: number;
  lastLine: number;
  oversized: { line: number; bytes: number }[];
}

/**
 * Sends a JSON Lines file to the operator-feed queue from line `fromLine` (1: the whole file):
 * read as a stream (a file of any size, in constant memory), cut into messages of whole lines
 * (shared/feed/messages.ts) each numbered by its first line, four a SendMessageBatch call. A
 * line longer than a record may be is reported and left out. When SQS fails, it throws
 * FeedUploadStopped with the line to go on from: every line before it is on the queue, and
 * sending a line twice is harmless (the consumer decides every record by its source time).
 */
export const sendFeedFile = async (
  sqs: SQSClient,
  queueUrl: string,
  file: string,
  fromLine: number,
  progress: ProgressOutput,
): Promise<FeedUpload> => {
  const bytesTotal = statSync(file).size;
  const stream = createReadStream(file);
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const oversized: FeedUpload['oversized'] = [];
  const cutter = feedCutter((line) => {
    oversized.push(line);
    progress.err(`Line ${line.line} refused: ${line.reason}`);
  });
  const bar = progressBar<FeedProgress>(progress, feedProgressLine);
  const state: FeedProgress = { phase: 'sending', bytesRead: 0, bytesTotal, linesSent: 0, messagesSent: 0 };
  let resumeLine = fromLine;
  let lastLine = fromLine - 1;
  async function* drafts(): AsyncGenerator<FeedMessageDraft> {
    let number = 0;
    for await (const text of lines) {
      number += 1;
      if (number < fromLine) continue;
      lastLine = number;
      const closed = cutter.add({ line: number, text });
      if (closed) yield closed;
    }
    const last = cutter.end();
    if (last) yield last;
  }
  try {
    await sendFeedMessages(sqs, queueUrl, drafts(), (draft) => {
      resumeLine = draft.firstLine + draft.lines;
      state.linesSent += draft.lines;
      state.messagesSent += 1;
      state.bytesRead = stream.bytesRead;
      bar.update(state);
    });
  } catch (error) {
    bar.done();
    stream.destroy();
    throw new FeedUploadStopped(resumeLine, error as Error);
  }
  state.bytesRead = bytesTotal;
  bar.update(state);
  bar.done();
  return { lines: Math.max(0, lastLine - fromLine + 1), messages: state.messagesSent, firstLine: fromLine, lastLine, oversized };
};

/** The refused lines of the last 14 days, newest message first, as lines of text: `received_at  batch line N: reason` and the line's start. */
export const feedRejectionLines = async (table: { db: DynamoDBDocumentClient; tableName: string }, nowMs: number, limit: number): Promise<string[]> => {
  const rejections = await listFeedRejections(table, nowMs, limit);
  if (rejections.length === 0) return ['No refused feed lines in the last 14 days.'];
  return rejections.flatMap((rejection) => [
    `${rejection.received_at}  message ${rejection.batch_id} line ${rejection.line}: ${rejection.reason}`,
    `    ${rejection.text.slice(0, 160)}`,
  ]);
};
