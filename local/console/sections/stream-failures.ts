/**
 * The console's stream records set aside (issue #31, point 5): what the table-stream consumers'
 * failure queues hold (local/stream-failure-queues.ts), newest first. A record a consumer could
 * not process shows its consumer, when, the item's keys and type and the reason, with the
 * record itself folded; a record whose retries ran out (an outage, or the consumer itself
 * failing) shows its position in the stream. The queues are read without taking anything.
 */
import { html, type Html } from '../html';
import type { ConsoleSection } from '../section';
import type { ConsoleSources } from '../sources';
import type { StreamFailureMessage } from '../../stream-failure-queues';
import { definitions, empty, jsonBlock, shownOf } from './format';

/** Messages shown on the page (newest first). */
export const streamFailuresShown = 50;

/** The fields of a message that the page shows, whichever kind it is. */
type FailureBody = Record<string, unknown> & {
  kind?: string;
  DDBStreamBatchInfo?: Record<string, unknown>;
  requestContext?: Record<string, unknown>;
};

const keysText = (keys: unknown): string =>
  keys && typeof keys === 'object' ? Object.entries(keys as Record<string, unknown>).sort(([left], [right]) => left.localeCompare(right)).map(([name, value]) => `${name}=${String(value)}`).join(' ') : '';

const oneMessage = (message: StreamFailureMessage): Html => {
  const body = (message.body && typeof message.body === 'object' ? message.body : {}) as FailureBody;
  if (body.kind === 'stream-record-set-aside') {
    return html`<article class="stream-failure">
<h3>Set aside by <code>${message.consumer}</code>: <code>${keysText(body.keys)}</code></h3>
${definitions([
  ['When', String(body.set_aside_at ?? message.sentAt)],
  ['Item type', body.item_type as string | undefined],
  ['Change', body.event_name as string | undefined],
  ['Changed at', body.changed_at as string | undefined],
  ['Sequence number', body.sequence_number as string | undefined],
  ['Reason', body.reason as string | undefined],
])}
<details><summary>The record</summary>${jsonBlock(body.record ?? body.record_omitted ?? null)}</details>
</article>
`;
  }
  const batch = body.DDBStreamBatchInfo;
  if (batch) {
    return html`<article class="stream-failure">
<h3>Retries ran out in <code>${message.consumer}</code></h3>
${definitions([
  ['When', message.sentAt],
  ['Attempts', String(body.requestContext?.approximateInvokeCount ?? '')],
  ['Shard', batch.shardId as string | undefined],
  ['From sequence number', batch.startSequenceNumber as string | undefined],
  ['To sequence number', batch.endSequenceNumber as string | undefined],
])}
</article>
`;
  }
  return html`<article class="stream-failure"><h3><code>${message.consumer}</code></h3>${definitions([['When', message.sentAt]])}${jsonBlock(message.body)}</article>
`;
};

/** The stream consumers' failure queues. */
export const streamFailuresSection = (sources: ConsoleSources): ConsoleSection => ({
  id: 'stream-failures',
  title: 'Stream records set aside',
  render: async () => {
    const messages = (await sources.streamFailures?.()) ?? [];
    const how = html`<p class="meta">Records of the table's stream that a consumer (lifecycle events, the SIM list index) could not process: set aside with the reason, while the records after them went on. Each stays 14 days in the consumer's failure queue; docs/operations.md says how to replay or repair one.</p>`;
    return {
      body: html`${how}${messages.length === 0 ? empty('No stream record set aside.') : html`${shownOf(streamFailuresShown, messages.length)}${messages.slice(0, streamFailuresShown).map(oneMessage)}`}`,
      // Folded while there is none (the page stays short).
      folded: messages.length === 0,
    };
  },
});
