/**
 * The console's operator feed (issue #20): the latest messages the feed's consumer applied, with
 * their counts (applied, unchanged, stale, refused, held, released), the latest refused lines
 * with their reasons, and the lines held for SIMs not seen yet (issue #31), from the journal the
 * consumer keeps 14 days (shared/feed/journal.ts, shared/feed/held.ts), as `npm run admin --
 * feed-rejections` lists them. Records are sent with `POST /_local/feed`.
 */
import { listHeldLines } from '../../../shared/feed/held';
import { listFeedBatches, listFeedRejections } from '../../../shared/feed/journal';
import { html } from '../html';
import type { ConsoleSection } from '../section';
import type { ConsoleSources } from '../sources';
import { empty } from './format';

/** Batches and refused lines shown (newest first). */
export const feedShown = 20;

/** The feed's recent batches and refused lines. */
export const feedSection = (sources: ConsoleSources): ConsoleSection => ({
  id: 'feed',
  title: 'Operator feed',
  render: async () => {
    const now = Date.now();
    const [batches, rejections, held] = await Promise.all([
      listFeedBatches(sources.orders, now, feedShown),
      listFeedRejections(sources.orders, now, feedShown),
      listHeldLines(sources.orders, now, feedShown),
    ]);
    const how = html`<p class="meta">Send records (JSON Lines) with <code>curl -X POST --data-binary @records.jsonl ${sources.baseUrl()}/_local/feed</code>; they apply within seconds.</p>`;
    const batchList =
      batches.length === 0
        ? empty('No feed messages applied yet.')
        : html`<table class="feed"><thead><tr><th>Received</th><th>Message</th><th>Lines</th><th>Applied</th><th>Unchanged</th><th>Stale</th><th>Refused</th><th>Held</th><th>Released</th></tr></thead><tbody>
${batches.map((batch) => html`<tr><td>${batch.received_at}</td><td><code>${batch.batch_id}</code> (from line ${batch.first_line})</td><td>${batch.lines}</td><td>${batch.applied}</td><td>${batch.unchanged}</td><td>${batch.stale}</td><td>${batch.rejected}</td><td>${batch.held ?? 0}</td><td>${batch.released ?? 0}</td></tr>
`)}</tbody></table>`;
    const rejectionList =
      rejections.length === 0
        ? empty('No refused lines.')
        : html`<table class="feed"><thead><tr><th>Received</th><th>Line</th><th>Reason</th><th>Text</th></tr></thead><tbody>
${rejections.map((rejection) => html`<tr><td>${rejection.received_at}</td><td>${rejection.line}</td><td>${rejection.reason}</td><td><pre>${rejection.text}</pre></td></tr>
`)}</tbody></table>`;
    const heldList =
      held.length === 0
        ? empty('No lines held.')
        : html`<table class="feed"><thead><tr><th>Received</th><th>Message</th><th>Line</th><th>ICCID</th><th>Text</th></tr></thead><tbody>
${held.map((line) => html`<tr><td>${line.received_at}</td><td><code>${line.batch_id}</code></td><td>${line.line}</td><td>${line.iccid}</td><td><pre>${line.text.slice(0, 300)}</pre></td></tr>
`)}</tbody></table>`;
    return {
      body: html`${how}<h3>Messages applied</h3>${batchList}<h3>Refused lines</h3>${rejectionList}<h3>Held for SIMs not seen yet (applied when the SIM arrives, kept 14 days)</h3>${heldList}`,
      // Folded until the feed has been used (the page stays short).
      folded: batches.length === 0,
    };
  },
});
