/**
 * The console's SIMs (issue #15, point 5): every SIM with its customer, status and
 * month-to-date usage, 10 to a page, filtered by part of an ICCID or customer and by status
 * (issue #22: a form on every row of every SIM made the page long), each with a small form
 * changing its status and data_used_mb
 * (`POST /_local/sim-changes/{iccid}`), through the same code as `POST /_local/sims/{iccid}`
 * (local/sim-changes.ts applySimChange). The table's stream then makes line.activated,
 * line.suspended or usage.updated of the change for the subscriptions (./webhooks.ts).
 */
import { simStatuses } from '../../../shared/sims/change-sim';
import { applySimChange } from '../../sim-changes';
import type { ActivityLog } from '../activity';
import { html } from '../html';
import { redirect, sendJson, wantsJson } from '../http';
import { listSims, type ConsoleSim } from '../lifecycle';
import { consolePath } from '../page';
import type { ConsoleSection, ConsoleView } from '../section';
import type { ConsoleSources } from '../sources';
import { empty, statusBadge } from './format';

/** SIMs per page of the table (by ICCID). */
export const simsPerPage = 10;

/** The table's filter and page, from the page's query (`sims_q`: part of an ICCID or a customer's id or name; `sims_status`; `sims_page`). */
interface SimListing {
  text: string;
  status: string;
  page: number;
}

const listingOf = (query: URLSearchParams): SimListing => {
  const page = Number(query.get('sims_page'));
  return {
    text: (query.get('sims_q') ?? '').trim().slice(0, 100),
    status: (simStatuses as readonly string[]).includes(query.get('sims_status') ?? '') ? query.get('sims_status')! : '',
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
};

const matches = (sim: ConsoleSim, { text, status }: SimListing): boolean => {
  if (status && sim.status !== status) return false;
  const wanted = text.toLowerCase();
  return !wanted || [sim.iccid, sim.customer_id, sim.customer_name ?? ''].some((value) => value.toLowerCase().includes(wanted));
};

/** A link to another page of the table, keeping the filter. */
const pageHref = (listing: SimListing, page: number): string => {
  const query = new URLSearchParams();
  if (listing.text) query.set('sims_q', listing.text);
  if (listing.status) query.set('sims_status', listing.status);
  if (page > 1) query.set('sims_page', String(page));
  const text = query.toString();
  return `${consolePath}/${text ? `?${text}` : ''}#sims`;
};

/** The filter form: a GET of the page itself (the Content-Security-Policy allows forms to its own origin). */
const filterForm = (listing: SimListing) => html`<form method="get" action="${consolePath}/#sims" class="filter">
<label>ICCID or customer <input name="sims_q" value="${listing.text}" size="22"></label>
<label>Status <select name="sims_status"><option value="">any</option>${simStatuses.map(
  (status) => html`<option value="${status}"${status === listing.status ? html` selected` : ''}>${status}</option>`,
)}</select></label>
<button type="submit">Filter</button>${listing.text || listing.status ? html` <a href="${consolePath}/#sims">show all</a>` : ''}
</form>`;

/** "SIMs 11–20 of 30", and the previous / next links. */
const pager = (listing: SimListing, page: number, pages: number, first: number, last: number, total: number, all: number) =>
  html`<p class="meta pages">SIMs ${first}–${last} of ${total}${total < all ? ` (filtered from ${all})` : ''}</p>${
    pages > 1
      ? html`<p class="meta pages">${page > 1 ? html`<a href="${pageHref(listing, page - 1)}">previous</a>` : 'previous'} · page ${page} of ${pages} · ${
          page < pages ? html`<a href="${pageHref(listing, page + 1)}">next</a>` : 'next'
        }</p>`
      : ''
  }`;

/** Where a changed SIM is on the unfiltered table: the page to return to after a change. */
const pageOf = (sims: ConsoleSim[], iccid: string): number => Math.floor(Math.max(sims.findIndex((sim) => sim.iccid === iccid), 0) / simsPerPage) + 1;

const changeForm = (view: ConsoleView, sim: ConsoleSim) =>
  view.actionForm(`/sim-changes/${encodeURIComponent(sim.iccid)}`, 'Change', {
    className: 'change',
    // A status outside the specification's list (an old or hand-written item) stays selected as "unchanged".
    controls: html`<label>Status <select name="status">${
      (simStatuses as readonly string[]).includes(sim.status) ? '' : html`<option value="" selected>${sim.status} (unchanged)</option>`
    }${simStatuses.map(
      (status) => html`<option value="${status}"${status === sim.status ? html` selected` : ''}>${status}</option>`,
    )}</select></label> <label>data_used_mb <input name="data_used_mb" value="${sim.data_used_mb}" inputmode="decimal" size="10"></label> `,
  });

/** The SIMs section and its change form's action. */
export const simsSection = (sources: ConsoleSources, activity: ActivityLog): ConsoleSection => ({
  id: 'sims',
  title: 'SIMs',
  render: async (view) => {
    const sims = await listSims(sources.orders);
    if (sims.length === 0) return empty('No SIMs in the table.');
    const listing = listingOf(view.query);
    const found = sims.filter((sim) => matches(sim, listing));
    const pages = Math.max(Math.ceil(found.length / simsPerPage), 1);
    const page = Math.min(listing.page, pages);
    const shown = found.slice((page - 1) * simsPerPage, page * simsPerPage);
    const intro = html`<p class="meta">A change here is what <code>POST ${consolePath}/sims/{iccid}</code> does: the table's stream makes line.activated, line.suspended or usage.updated of it for the <a href="#webhooks">lifecycle webhooks</a>.</p>${filterForm(listing)}`;
    if (shown.length === 0) return html`${intro}${empty('No SIM matches this filter.')}`;
    return html`${intro}${pager(listing, page, pages, (page - 1) * simsPerPage + 1, (page - 1) * simsPerPage + shown.length, found.length, sims.length)}<table class="sims"><thead><tr><th>ICCID</th><th>Customer</th><th>Status</th><th>data_used_mb</th><th>Updated</th><th>Change</th></tr></thead><tbody>
${shown.map(
  (sim) => html`<tr id="sim-${sim.iccid}"><td><code>${sim.iccid}</code></td><td>${sim.customer_name} <code>${sim.customer_id}</code></td><td>${statusBadge(sim.status)}</td><td>${sim.data_used_mb}</td><td>${sim.updated_at}</td><td>${changeForm(view, sim)}</td></tr>
`,
)}</tbody></table>`;
  },
  routes: [
    {
      method: 'POST',
      path: /^\/sim-changes\/([^/]+)$/,
      handle: async ({ request, response, params, form }) => {
        const iccid = params[0] ?? '';
        // An empty field leaves that value as it is; the checks and messages are applySimChange's.
        const status = form.get('status') ?? '';
        const used = (form.get('data_used_mb') ?? '').trim();
        const changed = await applySimChange(sources.orders, iccid, { ...(status ? { status } : {}), ...(used ? { data_used_mb: used } : {}) }, Date.now());
        activity.record(`Changed SIM ${changed.iccid}: status ${changed.status}, data_used_mb ${changed.usage.data_used_mb}; the table's stream makes its lifecycle events.`);
        if (wantsJson(request)) sendJson(response, 200, changed);
        else {
          // Back to the page of the table that shows it.
          const page = pageOf(await listSims(sources.orders), changed.iccid);
          redirect(response, `${consolePath}/${page > 1 ? `?sims_page=${page}` : ''}#sim-${changed.iccid}`);
        }
      },
    },
  ],
});
