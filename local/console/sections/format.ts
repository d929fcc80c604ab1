/** Small pieces the console's sections share: status badges, definition lists, JSON and times. */
import { html, type Html } from '../html';

/** A status as a coloured badge (`class="status status-fulfilled"`); the class is derived from a fixed set of characters. */
export const statusBadge = (status: string): Html =>
  html`<span class="status status-${status.replace(/[^a-z_]/g, '')}">${status}</span>`;

/** A definition list of the entries whose value is not undefined. */
export const definitions = (entries: Array<[string, unknown]>): Html =>
  html`<dl>${entries.filter(([, value]) => value !== undefined && value !== null && value !== '').map(([term, value]) => html`<dt>${term}</dt><dd>${value}</dd>`)}</dl>`;

/** A value as indented JSON in a <pre>. */
export const jsonBlock = (value: unknown): Html => html`<pre>${JSON.stringify(value, null, 2)}</pre>`;

/** A text that is JSON shown indented, any other text as it is, in a <pre>. */
export const bodyBlock = (body: string): Html => {
  try {
    return jsonBlock(JSON.parse(body));
  } catch {
    return html`<pre>${body}</pre>`;
  }
};

/** "No ... yet" for an empty list. */
export const empty = (what: string): Html => html`<p class="empty">${what}</p>`;

/** "Showing the newest N of M" when a list was cut. */
export const shownOf = (shown: number, total: number): Html | undefined =>
  total > shown ? html`<p class="meta">Showing the newest ${shown} of ${total}.</p>` : undefined;

/** A byte count as people read it. */
export const byteSize = (bytes: number): string =>
  bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
