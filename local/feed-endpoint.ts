import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { listHeldLines } from '../shared/feed/held';
import { listFeedBatches, listFeedRejections } from '../shared/feed/journal';
import { feedMessageDrafts, leftOutReason } from '../shared/feed/messages';
import { feedLines, maxLineBytes, readFeedLine } from '../shared/feed/records';
import { sendFeedMessages } from './feed-sender';
import type { LocalMount } from './gateway';
import { readBoundedBody } from './request-body';

/** The mount prefix of the local operator feed (LOCAL-CONTRACT.md, "Operator feed"). */
export const feedMount = '/_local/feed';

/** Largest body taken (bytes); a larger file goes through `npm run admin -- feed FILE --queue-url URL`. */
export const maxFeedBodyBytes = 16 * 1024 * 1024;

/** What the endpoint sends to and reads from. */
export interface FeedEndpointDeps {
  sqs: SQSClient;
  queueUrl: string;
  db: DynamoDBDocumentClient;
  tableName: string;
}

/** A line refused on arrival: its 1-based number and why. */
export interface RefusedLine {
  line: number;
  reason: string;
}


const answer = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers });
  response.end(JSON.stringify(body));
};

/**
 * Queues a JSON Lines text for the operator feed's consumer, as the admin CLI's `feed` does for
 * the deployed queue: cut into messages of whole lines, each numbered by its first line. Every
 * line is read first: the ones that cannot be read or break a field rule are returned (they are
 * queued too, so the consumer's journal keeps them with the rest of the batch, where the console
 * and `feed-rejections` list them). `accepted` counts the lines that read well.
 */
export const queueFeedText = async (deps: FeedEndpointDeps, text: string): Promise<{ accepted: number; rejected: RefusedLine[] }> => {
  const lines = feedLines(text);
  const rejected: RefusedLine[] = [];
  for (const { line, text: content } of lines) {
    // A line the sender leaves out (too long, or a character SQS cannot carry) never reaches the journal: say why here.
    const leftOut = leftOutReason(content);
    const read = leftOut === undefined ? readFeedLine(content, Date.now()) : { reason: leftOut };
    if ('reason' in read) rejected.push({ line, reason: read.reason });
  }
  const numbered = text.split('\n').map((content, index) => ({ line: index + 1, text: content.endsWith('\r') ? content.slice(0, -1) : content }));
  // A line longer than a record may be is left out of the messages (it is already refused above).
  await sendFeedMessages(deps.sqs, deps.queueUrl, feedMessageDrafts(numbered, () => {}));
  return { accepted: lines.length - rejected.length, rejected };
};

/**
 * `POST {base}/_local/feed` with a JSON Lines body (LOCAL-CONTRACT.md, "Operator feed"):
 * queued for the same consumer the deployed operator-feed queue invokes (apply-operator-feed),
 * answered 202 `{"accepted": n, "rejected": [{"line": k, "reason": "..."}]}`; the records apply
 * within seconds. `GET` answers the journal: the latest batches with their counts, the latest
 * refused lines and the lines held for SIMs not seen yet (the console's Feed section shows the
 * same). Errors are JSON
 * `{detail, code}`: 400 `invalid_request` (a body with no line), 413 `payload_too_large`
 * (over 16 MiB: use the admin CLI's `feed`), 405 `method_not_allowed`, 404 `not_found`.
 * Local only: the deployed stack takes the feed on its SQS queue.
 */
export const feedHandler =
  (deps: () => FeedEndpointDeps, now: () => number = Date.now): LocalMount =>
  async (request, response, path) => {
    if (path !== '' && path !== '/') return answer(response, 404, { detail: `Not found: use POST ${feedMount} with a JSON Lines body.`, code: 'not_found' });
    if (request.method === 'GET' || request.method === 'HEAD') {
      const [batches, rejections, held] = await Promise.all([listFeedBatches(deps(), now()), listFeedRejections(deps(), now()), listHeldLines(deps(), now())]);
      return answer(response, 200, { batches, rejections, held });
    }
    if (request.method !== 'POST') {
      return answer(response, 405, { detail: `Method ${request.method} is not allowed on this path; use POST (or GET for the journal).`, code: 'method_not_allowed' }, { Allow: 'GET, POST' });
    }
    const { text, tooLarge } = await readBoundedBody(request, maxFeedBodyBytes);
    if (tooLarge) {
      return answer(response, 413, {
        detail: `The body must be at most ${maxFeedBodyBytes} bytes; send a larger file with npm run admin -- feed FILE --queue-url URL.`,
        code: 'payload_too_large',
      });
    }
    if (feedLines(text).length === 0) {
      return answer(response, 400, { detail: `The body holds no line: send JSON Lines, one record (at most ${maxLineBytes} bytes) a line.`, code: 'invalid_request' });
    }
    answer(response, 202, await queueFeedText(deps(), text));
  };
