import { positiveInteger, UsageError, type AdminCommand } from './command';
import { feedRejectionLines, sendFeedFile } from './feed-file';
import { sqsClientOf } from './sqs-client';

/** The admin commands of the operator feed (issue #20, docs/feed.md). */
export const feedCommands: Record<string, AdminCommand> = {};

/**
 * `feed FILE --queue-url URL [--from-line N]`: sends a JSON Lines file of any size to the
 * operator-feed queue (output OperatorFeedQueueUrl), with a progress bar; a stopped run says the
 * line to go on from.
 */
feedCommands.feed = async (_deps, argument, options, io) => {
  if (!argument || !options.queueUrl) throw new UsageError('feed needs FILE and --queue-url OPERATOR_FEED_QUEUE_URL (beside npm start, with no --table, --endpoint or --region, the local queue is found by itself)');
  const fromLine = positiveInteger(options.fromLine, '--from-line', 1);
  const client = sqsClientOf(options, io);
  try {
    const sent = await sendFeedFile(client, options.queueUrl, argument, fromLine, io);
    io.out(`Sent lines ${sent.firstLine} to ${sent.lastLine} of ${argument} in ${sent.messages} message${sent.messages === 1 ? '' : 's'}${sent.oversized.length > 0 ? ` (${sent.oversized.length} refused as too long)` : ''}`);
  } finally {
    client.destroy();
  }
};

/** `feed-rejections [--limit N]`: the refused lines the operator feed's consumer kept (14 days). */
feedCommands['feed-rejections'] = async (deps, _argument, options, io) => {
  for (const line of await feedRejectionLines(deps, Date.now(), positiveInteger(options.limit, '--limit', 100))) io.out(line);
};
