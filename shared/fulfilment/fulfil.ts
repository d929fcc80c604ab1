import type { HeldStockUnit, OrderItem } from '../db/items';
import { invoiceOf, type Invoice } from '../invoices/invoice';
import { renderInvoice } from '../invoices/render-invoice';
import { resolveBuyerAccount } from './accounts';
import { applyTopups, esimsOf, provisionDevices, topupsOf, type AppliedTopup } from './devices';
import { createDispatchTask } from './dispatch-task';
import { runDatabaseEffect, runMessageEffect, type FulfilmentRun } from './effects';
import { moveOrder, setOrderFields } from './orders';
import { emailEffect, notificationEffect, smsEffect } from './senders';
import { smsDecision } from './sms-rules';
import { assignOrderStock } from './stock';
import { dispatchNotification, esimSmsText, invoiceSubject, invoiceText, iotSmsText, receiptSubject, receiptText, type Provisioned } from './texts';

/** The effects of fulfilment, by name (the `EFFECT#<name>` records of an order). */
export const effectNames = {
  stock: 'stock',
  account: 'account',
  devices: 'devices',
  topups: 'topups',
  dispatchTask: 'dispatch_task',
  receiptEmail: 'receipt_email',
  sms: 'sms',
  smsReceipt: 'sms_receipt',
  invoiceEmail: 'invoice_email',
  operationsNotification: 'operations_notification',
} as const;

/** How fulfilling a paid order ended. */
export type FulfilOutcome = { status: 'fulfilled' } | { status: 'review_required'; reason: string };

class StockUnavailable extends Error {}

/** The e-mail's reference: `<order id>.<effect>` (Message-ID and outbox file name). */
const reference = (order: OrderItem, effect: string) => `${order.id}.${effect}`;

/**
 * Fulfils a paid order (status `paid`), effect by effect, each exactly once as
 * ./effects.ts describes, then moves it to `fulfilled`:
 * - every endpoint: the order's stock is assigned (B1 new eSIMs, B2 physical SIMs) and the
 *   buyer's account resolved or created, with the order's SMS decision taken then;
 * - B1: each eSIM becomes a device owned by the account, top-ups are recorded on their
 *   devices, the receipt is e-mailed, and the activation or top-up SMS sent when allowed;
 * - B2: a dispatch task awaits a person, the receipt is e-mailed and the operating team notified;
 * - B3: the receipt is e-mailed, an SMS receipt sent when allowed, and the PDF invoice
 *   e-mailed separately. No provisioning.
 * Stock that cannot be had any more sends the order to review instead (nothing provisioned).
 */
export const fulfilPaidOrder = async (run: FulfilmentRun): Promise<FulfilOutcome> => {
  const { deps, order } = run;
  const paidAt = order.paid_at ? new Date(order.paid_at) : deps.now();

  let units: HeldStockUnit[] = [];
  if (order.endpoint !== 'iot' && (order.held_units ?? []).length > 0) {
    try {
      ({ units } = await runDatabaseEffect(run, effectNames.stock, async () => {
        const assignment = await assignOrderStock(deps, order);
        if ('unavailable' in assignment) throw new StockUnavailable(assignment.unavailable);
        return { units: assignment.units };
      }));
    } catch (error) {
      if (!(error instanceof StockUnavailable)) throw error;
      await moveOrder(deps, order.id, ['paid'], 'review_required', { review_reason: `stock_unavailable: ${error.message}` });
      return { status: 'review_required', reason: `stock_unavailable: ${error.message}` };
    }
  }

  const account = await runDatabaseEffect(run, effectNames.account, async () => {
    const resolved = await resolveBuyerAccount(deps, order);
    const decision = smsDecision(order, resolved.before);
    await setOrderFields(deps, order.id, {
      account_email: resolved.email,
      sms_to: decision.to,
      ...(decision.reason ? { sms_skip_reason: decision.reason } : {}),
    });
    return {
      email: resolved.email,
      account_type: resolved.accountType,
      matched_by: resolved.matchedBy,
      sms_to: decision.to,
      sms_skip_reason: decision.reason ?? null,
    };
  });

  const provisioned: Provisioned = { esims: [], topups: [], units };
  if (order.endpoint === 'esim') {
    provisioned.esims = esimsOf(order, units);
    if (provisioned.esims.length > 0) {
      await runDatabaseEffect(run, effectNames.devices, async () => {
        await provisionDevices(deps, order, account.email, provisioned.esims);
        return { iccids: provisioned.esims.map((esim) => esim.iccid), owner: account.email };
      });
    }
    if (topupsOf(order).length > 0) {
      ({ topups: provisioned.topups } = await runDatabaseEffect(run, effectNames.topups, async () => ({
        topups: (await applyTopups(deps, order)) as AppliedTopup[],
      })));
    }
  } else if (order.endpoint === 'physical') {
    await runDatabaseEffect(run, effectNames.dispatchTask, async () => {
      await createDispatchTask(deps, order, units);
      return { status: 'awaiting_dispatch', units };
    });
  }

  await runMessageEffect(
    run,
    emailEffect(deps, effectNames.receiptEmail, () => ({
      to: [order.customer_email],
      subject: receiptSubject(order),
      text: receiptText(order, provisioned, paidAt),
      reference: reference(order, effectNames.receiptEmail),
    })),
  );

  if (order.endpoint === 'esim' && account.sms_to) {
    await runMessageEffect(
      run,
      smsEffect(deps, effectNames.sms, account.sms_to, esimSmsText(order, provisioned), reference(order, effectNames.sms), order.id),
    );
  } else if (order.endpoint === 'physical') {
    await runMessageEffect(
      run,
      notificationEffect(deps, effectNames.operationsNotification, {
        ...dispatchNotification(order, units),
        reference: reference(order, effectNames.operationsNotification),
      }),
    );
  } else if (order.endpoint === 'iot') {
    if (account.sms_to) {
      await runMessageEffect(
        run,
        smsEffect(deps, effectNames.smsReceipt, account.sms_to, iotSmsText(order), reference(order, effectNames.smsReceipt), order.id),
      );
    }
    const invoiceContact = order.invoice_contact?.email;
    await runMessageEffect(
      run,
      emailEffect(deps, effectNames.invoiceEmail, async () => ({
        to: [order.customer_email, ...(invoiceContact && invoiceContact.toLowerCase() !== order.customer_email_lower ? [invoiceContact] : [])],
        subject: invoiceSubject(order),
        text: invoiceText(order),
        attachments: [
          { filename: `invoice-${order.id}.pdf`, contentType: 'application/pdf', content: await renderInvoice(invoiceOf(order, paidAt)) },
        ],
        reference: reference(order, effectNames.invoiceEmail),
      })),
    );
  }

  await moveOrder(deps, order.id, ['paid'], 'fulfilled', { fulfilled_at: deps.now().toISOString() });
  return { status: 'fulfilled' };
};
