/** The console's webhook inbox: every request the local HTTPS inbox received (a delivery receipt sent to its callback_url, a lifecycle event to a subscription), with whether its signature verifies. */
import { html } from '../html';
import type { InboxDelivery } from '../../webhook-inbox';
import type { ConsoleSection } from '../section';
import type { ConsoleSources } from '../sources';
import { bodyBlock, definitions, empty, jsonBlock, statusBadge } from './format';

/** Deliveries shown on the page (newest first). */
export const inboxShown = 100;

const signatureOf = (delivery: InboxDelivery) => {
  const signature = delivery.signature;
  if (signature.status === 'verified') {
    // local/inbox-secrets.ts names a subscription's secret `<customer> webhook <subscription id>`.
    const subscription = /^(.+) webhook (wh_[0-9a-f]+)$/.exec(signature.owner);
    return subscription
      ? html`${statusBadge('verified')} with the signing secret of subscription <a href="#webhook-${subscription[2]}"><code>${subscription[2]}</code></a> of customer <code>${subscription[1]}</code>`
      : html`${statusBadge('verified')} with the receipt secret of customer <code>${signature.owner}</code>`;
  }
  if (signature.status === 'invalid') return html`${statusBadge('invalid')} ${signature.reason}`;
  return statusBadge('unsigned');
};

/** The inbox's deliveries, newest first. */
export const inboxSection = (sources: ConsoleSources): ConsoleSection => ({
  id: 'inbox',
  title: 'Webhook inbox',
  render: async () => {
    const deliveries = sources.inboxDeliveries().slice(0, inboxShown);
    const url = sources.inboxUrl();
    return html`${url ? html`<p class="meta">Use <code>${url}</code> as a callback_url: it needs no setup.</p>` : ''}${
      deliveries.length === 0
        ? empty('No deliveries yet.')
        : deliveries.map(
            (delivery) => html`<article class="delivery">
<h3>#${delivery.id} ${delivery.method} <code>${delivery.path}</code></h3>
${definitions([['Received', delivery.received_at], ['Signature', signatureOf(delivery)]])}
${bodyBlock(delivery.body)}
<details><summary>Headers</summary>${jsonBlock(delivery.headers)}</details>
</article>
`,
          )
    }`;
  },
});
