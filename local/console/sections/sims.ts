/**
 * The console's SIMs (issue #15, point 5): every SIM with its customer, status and
 * month-to-date usage, each with a small form changing its status and data_used_mb
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
import { empty, shownOf, statusBadge } from './format';

/** SIMs shown on the page (by ICCID). */
export const simsShown = 200;

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
    return html`<p class="meta">A change here is what <code>POST ${consolePath}/sims/{iccid}</code> does: the table's stream makes line.activated, line.suspended or usage.updated of it for the <a href="#webhooks">lifecycle webhooks</a>.</p>${shownOf(
      Math.min(sims.length, simsShown),
      sims.length,
    )}<table class="sims"><thead><tr><th>ICCID</th><th>Customer</th><th>Status</th><th>data_used_mb</th><th>Updated</th><th>Change</th></tr></thead><tbody>
${sims.slice(0, simsShown).map(
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
        else redirect(response, `${consolePath}/#sim-${changed.iccid}`);
      },
    },
  ],
});
