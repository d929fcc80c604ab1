import { maxLineBytes } from './records';

/**
 * Cutting a JSON Lines text into feed messages (issue #20): whole lines only, each message at
 * most `maxBytes` of UTF-8 and numbered by its first line (the `first_line` message attribute),
 * so a refused line is reported with its number in the file. The admin CLI's `feed` and the
 * local `POST /_local/feed` both send what this cuts.
 */

/**
 * The most bytes of one feed message's body the senders put in: SQS takes 256 KiB a message
 * and 256 KiB a SendMessageBatch call in all, so four of these and their attributes fit one
 * call, and a message holds some 300 usage records, applied well inside the consumer's timeout.
 */
export const feedMessageBytes = 60 * 1024;

/** Messages per SendMessageBatch call (feedMessageBytes each, under SQS's 256 KiB a call). */
export const feedMessagesPerCall = 4;

/** A message ready to send: its body and the number of its first line. */
export interface FeedMessageDraft {
  firstLine: number;
  body: string;
  /** Lines in the body (blank ones included: they keep the numbering). */
  lines: number;
  bytes: number;
}

/**
 * A line the sender itself refuses: longer than a record may be, or holding a character an SQS
 * message cannot carry. It is left out of the messages (its number kept), so that it costs no
 * other line: SQS refuses a whole message for one such character.
 */
export interface OversizedLine {
  line: number;
  bytes: number;
  /** Why it was left out, as the journal would say it. */
  reason: string;
}

/**
 * A character SQS refuses in a message body (it takes tab, LF, CR, U+0020 to U+D7FF, U+E000 to
 * U+FFFD and U+10000 up): other C0 controls, U+FFFE, U+FFFF, and a surrogate without its pair.
 */
const unsendable = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why the sender leaves a line out, or undefined for a line it sends. */
export const leftOutReason = (text: string, bytes = Buffer.byteLength(text, 'utf8')): string | undefined => {
  if (bytes > maxLineBytes) return `the line is longer than ${maxLineBytes} bytes`;
  const character = unsendable.exec(text)?.[0];
  if (character !== undefined) return `the line holds U+${character.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}, which a queue message cannot carry`;
  return undefined;
};

/** Cuts lines into messages one line at a time (for a file read line by line). */
export interface FeedCutter {
  /** Adds the next line; returns the message it closed, if any. */
  add(entry: { line: number; text: string }): FeedMessageDraft | undefined;
  /** The last message, if any. */
  end(): FeedMessageDraft | undefined;
}

/**
 * A cutter of numbered lines into messages of at most `maxBytes`. A line longer than a record
 * may be (records.ts, maxLineBytes) or holding a character SQS cannot carry (leftOutReason) is
 * reported through `onOversized` and sent as an empty line, so the lines after it keep their
 * numbers; a message of blank lines only is not sent (the consumer would take it for an
 * unreadable one).
 */
export const feedCutter = (onOversized: (line: OversizedLine) => void, maxBytes = feedMessageBytes): FeedCutter => {
  let parts: string[] = [];
  let firstLine = 0;
  let bytes = 0;
  const close = (): FeedMessageDraft | undefined => {
    const draft = parts.some((part) => part.trim() !== '') ? { firstLine, body: parts.join('\n'), lines: parts.length, bytes } : undefined;
    parts = [];
    bytes = 0;
    return draft;
  };
  return {
    add: ({ line, text }) => {
      let content = text;
      let size = Buffer.byteLength(content, 'utf8');
      const reason = leftOutReason(content, size);
      if (reason !== undefined) {
        onOversized({ line, bytes: size, reason });
        content = '';
        size = 0;
      }
      const closed = parts.length > 0 && bytes + size + 1 > maxBytes ? close() : undefined;
      if (parts.length === 0) firstLine = line;
      parts.push(content);
      bytes += size + (parts.length > 1 ? 1 : 0);
      return closed;
    },
    end: close,
  };
};

/** Cuts numbered lines into messages (feedCutter over a whole list). */
export function* feedMessageDrafts(lines: Iterable<{ line: number; text: string }>, onOversized: (line: OversizedLine) => void, maxBytes = feedMessageBytes): Generator<FeedMessageDraft> {
  const cutter = feedCutter(onOversized, maxBytes);
  for (const entry of lines) {
    const closed = cutter.add(entry);
    if (closed) yield closed;
  }
  const last = cutter.end();
  if (last) yield last;
}
