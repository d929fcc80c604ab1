/**
 * The console's lifecycle webhooks (issue #15): every customer's subscriptions (never a
 * secret) with their status and most recent delivery attempts, and per customer a one-click
 * "Subscribe the webhook inbox" (`POST /_local/webhooks/{customer}/subscribe-inbox`), made
 * through the service's own subscribe (shared/webhooks/subscribe.ts) with the inbox's URL,
 * which the runtime exempts from the public-host rule. The inbox then shows the signed events
 * and whether their signature verifies (./inbox.ts).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { getSecret } from '../../../shared/config/secrets';
import type { WebhookDeliveryItem } from '../../../shared/db/items';
import { key } from '../../../shared/db/keys';
import { ApiError } from '../../../shared/errors/api-error';
import { quoteInput } from '../../../shared/errors/detail-text';
import { validateCreateRequest } from '../../../shared/webhooks/create-request';
import { eventTypes } from '../../../shared/webhooks/event-types';
import { subscribeCustomer } from '../../../shared/webhooks/subscribe';
import { listSubscriptions, subscriptionView } from '../../../shared/webhooks/subscriptions';
import { identifier } from '../../../shared/vocabulary/fields';
import type { ActivityLog } from '../activity';
import { html, type Html } from '../html';
import { redirect, sendJson, wantsJson } from '../http';
import { listCustomerSubscriptions, type ConsoleSubscription } from '../lifecycle';
import { consolePath } from '../page';
import type { ConsoleSection, ConsoleView } from '../section';
import type { ConsoleSources } from '../sources';
import { definitions, empty, statusBadge } from './format';

/** Delivery attempts shown per subscription (newest first). */
export const deliveriesShown = 20;

/** Where on the inbox lifecycle events are sent (its path only tells them from delivery receipts). */
export const inboxLifecyclePath = 'lifecycle';

/** The description the console gives the inbox's subscription. */
export const inboxSubscriptionDescription = 'The local webhook inbox (subscribed from the developer console)';

/**
 * The URL a subscription of the webhook inbox to lifecycle events has (`https://127.0.0.1:<port>/lifecycle`):
 * the console's "Subscribe the webhook inbox" and the start banner's curl make the same, so the
 * console knows the inbox as subscribed whichever made it.
 */
export const lifecycleUrlOf = (inboxUrl: string): string => `${inboxUrl.replace(/\/$/, '')}/${inboxLifecyclePath}`;

/** The inbox's URL for lifecycle events, once the inbox runs. */
const inboxLifecycleUrl = (sources: ConsoleSources): string | undefined => {
  const url = sources.inboxUrl();
  return url === undefined ? undefined : lifecycleUrlOf(url);
};

/**
 * Delivery attempts as one table, newest first: time, event type and id, attempt, outcome
 * (the receiver's HTTP status or the error) and when the next attempt is due. Every value is
 * escaped (../html.ts): URLs, errors and ids come from callers and receivers.
 */
export const deliveriesTable = (deliveries: readonly WebhookDeliveryItem[]): Html =>
  deliveries.length === 0
    ? empty('No delivery attempts yet.')
    : html`<table class="deliveries"><thead><tr><th>Attempted</th><th>Event</th><th>Event id</th><th>Attempt</th><th>Outcome</th><th>Next attempt</th></tr></thead><tbody>
${deliveries.map(
  (delivery) => html`<tr><td>${delivery.attempted_at}</td><td><code>${delivery.event_type}</code></td><td><code>${delivery.event_id}</code></td><td>${delivery.attempt}</td><td>${statusBadge(delivery.outcome)}${
    delivery.http_status !== null ? html` HTTP ${delivery.http_status}` : ''
  }${delivery.error ? html` ${delivery.error}` : ''}</td><td>${delivery.next_attempt_at ?? '—'}</td></tr>
`,
)}</tbody></table>`;

const renderSubscription = ({ subscription, deliveries }: ConsoleSubscription): Html => html`<div class="subscription" id="webhook-${subscription.id}">
<h4><code>${subscription.id}</code> ${statusBadge(subscription.status)}</h4>
${definitions([
  ['URL', html`<code>${subscription.url}</code>`],
  ['Events', subscription.events.join(', ')],
  ['Description', subscription.description ?? undefined],
  ['Created', subscription.created_at],
  ['Failing since', subscription.failing_since],
  ['Events failed in a row', subscription.failed_events_in_a_row > 0 ? subscription.failed_events_in_a_row : undefined],
])}
${deliveriesTable(deliveries)}
</div>
`;

/** The section and its "Subscribe the webhook inbox" action. */
export const webhooksSection = (sources: ConsoleSources, activity: ActivityLog): ConsoleSection => ({
  id: 'webhooks',
  title: 'Lifecycle webhooks',
  render: async (view: ConsoleView) => {
    const customers = await listCustomerSubscriptions(sources.orders, deliveriesShown);
    const inboxUrl = inboxLifecycleUrl(sources);
    const intro = html`<p class="meta">Every customer's subscriptions to lifecycle events (docs/webhooks.md), newest ${deliveriesShown} delivery attempts each. Secrets are never shown: the webhook inbox verifies with them. Change a SIM under <a href="#sims">SIMs</a> to make events.</p>`;
    if (customers.length === 0) return html`${intro}${empty('No customers in the table.')}`;
    return html`${intro}${customers.map(({ customer, subscriptions }) => {
      const inboxSubscription = subscriptions.find(({ subscription }) => subscription.url === inboxUrl);
      const subscribe =
        inboxUrl === undefined
          ? ''
          : inboxSubscription
            ? html`<p class="meta">The webhook inbox is subscribed (<a href="#webhook-${inboxSubscription.subscription.id}">${inboxSubscription.subscription.id}</a>).</p>`
            : html`<div class="actions">${view.actionForm(`/webhooks/${encodeURIComponent(customer.id)}/subscribe-inbox`, 'Subscribe the webhook inbox')}</div>`;
      return html`<article class="customer" id="webhooks-${customer.id}">
<h3>${customer.name} <code>${customer.id}</code></h3>
${subscribe}
${subscriptions.length === 0 ? empty('No subscriptions.') : subscriptions.map(renderSubscription)}
</article>
`;
    })}`;
  },
  routes: [
    {
      method: 'POST',
      path: /^\/webhooks\/([^/]+)\/subscribe-inbox$/,
      handle: async ({ request, response, params }) => {
        const customerId = params[0] ?? '';
        // The id rule of the seed and the feed (shared/vocabulary/fields.ts), before anything is read.
        const checked = v.safeParse(identifier(), customerId);
        if (!checked.success) throw new ApiError(400, 'invalid_request', `customer ${checked.issues[0].message}.`);
        const table = sources.orders;
        const found = await table.db.send(new GetCommand({ TableName: table.tableName, Key: key.customer(customerId) }));
        if (found.Item?.type !== 'customer') throw new ApiError(404, 'customer_not_found', `There is no customer ${quoteInput(customerId)}.`);
        const url = inboxLifecycleUrl(sources);
        if (url === undefined) throw new ApiError(503, 'inbox_not_running', 'The webhook inbox is not running yet: try again in a moment.');
        // One inbox subscription per customer: a second click would only deliver every event twice.
        const existing = (await listSubscriptions(table, customerId)).find((subscription) => subscription.url === url);
        let subscription = existing;
        if (existing) {
          activity.record(`The webhook inbox was already subscribed for customer ${customerId} (${existing.id}): nothing changed.`);
        } else {
          const keyMaterial = await getSecret('WEBHOOK_SECRETS_KEY');
          if (!keyMaterial) throw new Error('WEBHOOK_SECRETS_KEY is not configured');
          // The service's own validation and subscribe, with the inbox's origin as the one exempt host.
          // Every event type, sms.received included (issue #21), so the inbox shows them all.
          const valid = await validateCreateRequest({ url, events: [...eventTypes], description: inboxSubscriptionDescription }, { allowedHosts: [new URL(url).host] });
          ({ item: subscription } = await subscribeCustomer(table, { customerId, request: valid, keyMaterial, nowMs: Date.now() }));
          activity.record(
            `Subscribed the webhook inbox for customer ${customerId}: ${subscription.id} (${eventTypes.join(', ')}); its secret stays sealed in the table and the inbox verifies with it.`,
          );
        }
        if (wantsJson(request)) sendJson(response, existing ? 200 : 201, subscriptionView(subscription!));
        else redirect(response, `${consolePath}/#webhooks-${encodeURIComponent(customerId)}`);
      },
    },
  ],
});
