/**
 * The console's orders: each order with its status, payment intent and fulfilment effects,
 * and Pay / Decline / Cancel on the orders that can still be paid. The buttons work as
 * `npm run pay` does (local/pay-cli.ts): they confirm the order's intent on the embedded
 * Stripe emulator through `{base}/_local/stripe` with `pm_card_visa` or
 * `pm_card_chargeDeclined`, or cancel it; the emulator's signed event then reaches the
 * webhook and the order moves on. An action waits (up to actionWaitMs) until the order shows
 * the outcome, so the page it returns to already tells it.
 */
import { getOrder } from '../../../shared/checkout/orders';
import { basename, dirname, resolve } from 'node:path';
import type { FulfilmentEffectItem, OrderItem, OrderStatus } from '../../../shared/db/items';
import { ApiError } from '../../../shared/errors/api-error';
import { quoteInput } from '../../../shared/errors/detail-text';
import { pay } from '../../pay-cli';
import type { PaymentIntent } from '../../stripe-emulator/intents';
import type { ActivityLog } from '../activity';
import { html, joinHtml, type Html } from '../html';
import { redirect, sendJson, wantsJson } from '../http';
import { listOrders, type ConsoleOrder } from '../orders';
import { consolePath } from '../page';
import type { ConsoleSection, ConsoleView } from '../section';
import type { ConsoleSources } from '../sources';
import { definitions, empty, jsonBlock, shownOf, statusBadge } from './format';
import { emailAnchor } from './outbox';

/** Orders shown on the page (newest first). */
export const ordersShown = 50;
/** How long an action waits for the order to show its outcome before the page is shown anyway. */
export const actionWaitMs = 10_000;

/** A console payment action. */
export type PaymentAction = 'pay' | 'decline' | 'cancel';

/** Order states in which the buttons are offered: not yet paid, and not closed (a declined payment may be paid after all). */
const actionableOrders: OrderStatus[] = ['pending', 'payment_failed'];
/** Intent states Stripe lets a client confirm or cancel. */
const actionableIntents: Array<PaymentIntent['status']> = ['requires_payment_method', 'requires_confirmation'];
/** The order states that show an action's outcome. */
const outcomeStates: Record<PaymentAction, OrderStatus[]> = {
  pay: ['fulfilled', 'review_required'],
  decline: ['payment_failed'],
  cancel: ['cancelled'],
};
const pastTense: Record<PaymentAction, string> = { pay: 'Paid', decline: 'Declined', cancel: 'Cancelled' };

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const checkoutNames: Record<OrderItem['endpoint'], string> = {
  esim: 'B1 eSIM (POST /api/v1/checkout)',
  physical: 'B2 physical SIM (POST /api/v1/physical-checkout)',
  iot: 'B3 IoT contract (POST /api/v1/iot-physical-checkout)',
};

/** The order's payment intent on the emulator: the one checkout recorded, else the newest whose metadata names the order. */
const intentOf = (sources: ConsoleSources, order: OrderItem): PaymentIntent | undefined => {
  const intents = sources.stripe()?.intents;
  if (!intents) return undefined;
  if (order.payment_intent_id) {
    try {
      return intents.get(order.payment_intent_id);
    } catch {
      return undefined;
    }
  }
  return intents.all().find((intent) => intent.metadata.order_id === order.id);
};

/**
 * Why the order failed: its failure reason, and for a declined payment the decline from the
 * intent's last_payment_error (`card_declined (generic_decline), Your card was declined.`).
 */
const failureOf = (order: OrderItem, intent: PaymentIntent | undefined): string | undefined => {
  const declined = order.status === 'payment_failed' ? intent?.last_payment_error : undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const code = text(declined?.code);
  if (!code) return order.failure_reason;
  const declineCode = text(declined?.decline_code);
  const message = text(declined?.message);
  return `${order.failure_reason ?? 'payment_failed'}: ${code}${declineCode ? ` (${declineCode})` : ''}${message ? `, ${message}` : ''}`;
};

const buyerOf = (order: OrderItem): string => {
  const names = [order.customer_email, order.customer_name ?? [order.customer_first_name, order.customer_last_name].filter(Boolean).join(' '), order.company_name];
  return [...new Set(names.filter((name) => name !== undefined && name !== ''))].join(' · ');
};

const renderOrder = (sources: ConsoleSources, view: ConsoleView, { order, effects }: ConsoleOrder): Html => {
  const intent = intentOf(sources, order);
  const actionable = actionableOrders.includes(order.status) && intent !== undefined && actionableIntents.includes(intent.status);
  const path = `/orders/${order.id}`;
  return html`<article id="order-${order.id}" class="order">
<h3><code>${order.id}</code> ${statusBadge(order.status)}</h3>
${definitions([
  ['Checkout', checkoutNames[order.endpoint] ?? order.endpoint],
  ['Buyer', buyerOf(order)],
  ['Lines', joinHtml(order.lines.map((line) => html`${line.quantity} × ${line.name} (<code>${line.sku}</code>) at ${line.unit_price}`), html`<br>`)],
  ['Total', `${order.currency} ${order.amount_total} (subtotal ${order.subtotal} + VAT ${order.tax_amount} at ${order.vat_rate}% for ${order.vat_country})`],
  ['Created', order.created_at],
  ['Payment intent', order.payment_intent_id || intent ? html`<code>${intent?.id ?? order.payment_intent_id}</code> ${intent ? statusBadge(intent.status) : ''}` : undefined],
  ['Paid', order.paid_at],
  ['Fulfilled', order.fulfilled_at],
  ['Account', order.account_email],
  ['SMS', order.sms_to ? `to ${order.sms_to}` : order.sms_skip_reason ? `none: ${order.sms_skip_reason}` : undefined],
  ['Review', order.review_reason],
  ['Failure', failureOf(order, intent)],
])}
${actionable
  ? html`<div class="actions">${view.actionForm(`${path}/pay`, 'Pay', { className: 'pay' })}${view.actionForm(`${path}/decline`, 'Decline')}${view.actionForm(`${path}/cancel`, 'Cancel')}</div>`
  : ''}
${effects.length === 0
  ? empty('No fulfilment effects yet.')
  : html`<table class="effects"><thead><tr><th>Effect</th><th>Status</th><th>Completed</th><th>Detail</th></tr></thead><tbody>
${effects.map((effect) => html`<tr><td><code>${effect.effect}</code>${emailLink(sources, effect)}</td><td>${statusBadge(effect.status)}</td><td>${effect.completed_at ?? ''}</td><td>${effect.detail ? jsonBlock(effect.detail) : ''}</td></tr>
`)}</tbody></table>`}
</article>
`;
};

/** For an e-mail effect whose detail names its outbox file: a link to that e-mail on the page. */
const emailLink = (sources: ConsoleSources, effect: FulfilmentEffectItem): Html | undefined => {
  const file = effect.detail?.id;
  if (typeof file !== 'string' || !file.endsWith('.eml') || dirname(file) !== resolve(sources.outboxDir)) return undefined;
  return html`<br><a href="#${emailAnchor(basename(file))}">see the e-mail</a>`;
};

const waitForOutcome = async (sources: ConsoleSources, orderId: string, action: PaymentAction): Promise<OrderStatus | undefined> => {
  const deadline = Date.now() + actionWaitMs;
  let status: OrderStatus | undefined;
  for (;;) {
    status = (await getOrder(sources.orders, orderId))?.status;
    if (status === undefined || outcomeStates[action].includes(status) || Date.now() >= deadline) return status;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** The orders section and its Pay / Decline / Cancel actions (`POST /_local/orders/{order_id}/{pay|decline|cancel}`). */
export const ordersSection = (sources: ConsoleSources, activity: ActivityLog): ConsoleSection => ({
  id: 'orders',
  title: 'Orders',
  render: async (view) => {
    const { orders, total } = await listOrders(sources.orders, ordersShown);
    const payments = sources.stripe()
      ? html`<p class="meta">Pay, Decline and Cancel confirm the order's payment intent on the embedded Stripe emulator (<code>pm_card_visa</code>, <code>pm_card_chargeDeclined</code>) or cancel it, as <code>npm run pay</code> does.</p>`
      : html`<p class="meta">No Pay buttons: STRIPE_SECRET_KEY is set, so this runtime does not run the Stripe emulator.</p>`;
    return html`${payments}${shownOf(orders.length, total)}${orders.length === 0 ? empty('No orders yet: check out over the API (the npm start banner prints one curl per checkout).') : orders.map((entry) => renderOrder(sources, view, entry))}`;
  },
  routes: [
    {
      method: 'POST',
      path: /^\/orders\/([^/]+)\/(pay|decline|cancel)$/,
      handle: async ({ request, response, params }) => {
        const [orderId = '', action] = params as [string, PaymentAction];
        if (!sources.stripe()) {
          throw new ApiError(409, 'stripe_emulator_not_running', 'This runtime does not run the Stripe emulator (STRIPE_SECRET_KEY is set): pay through your own Stripe.');
        }
        const order = uuidPattern.test(orderId) ? await getOrder(sources.orders, orderId) : undefined;
        if (!order) throw new ApiError(404, 'order_not_found', `There is no order ${quoteInput(orderId)}.`);
        const intent = intentOf(sources, order);
        if (!actionableOrders.includes(order.status) || !intent || !actionableIntents.includes(intent.status)) {
          throw new ApiError(
            409,
            'order_not_payable',
            `Order ${order.id} is ${order.status}${intent ? ` and its payment intent ${intent.status}` : ' and has no payment intent on the emulator'}: only a pending order (or one whose payment failed) with an open payment intent can be paid, declined or cancelled.`,
          );
        }
        const result = await pay(intent.id, action, sources.baseUrl());
        const accepted = result.status === 200 || (action === 'decline' && result.outcome === 'card_declined');
        if (!accepted) {
          throw new ApiError(409, 'payment_action_refused', `The Stripe emulator did not ${action} ${intent.id}: ${result.outcome} (HTTP ${result.status}).`);
        }
        const orderStatus = await waitForOutcome(sources, order.id, action);
        activity.record(
          `${pastTense[action]} order ${order.id} (${intent.id}): ${result.outcome} (HTTP ${result.status}); the order is ${orderStatus ?? 'gone'}${
            orderStatus && outcomeStates[action].includes(orderStatus) ? '' : ' (still processing: refresh in a moment)'
          }.`,
        );
        if (wantsJson(request)) {
          sendJson(response, 200, { order_id: order.id, payment_intent_id: intent.id, action, stripe_status: result.status, outcome: result.outcome, order_status: orderStatus });
        } else {
          redirect(response, `${consolePath}/#order-${order.id}`);
        }
      },
    },
  ],
});
