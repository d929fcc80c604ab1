import type { AccountItem, OrderItem } from '../db/items';

/** Whether an order gets its SMS, and where to. */
export interface SmsDecision {
  /** The number to text, or null for no SMS. */
  to: string | null;
  /** Why there is no SMS (when `to` is null). */
  reason?: string;
}

/**
 * True when a value on the account was on file before the order was created: given by an
 * earlier order (`*_at` before the order's created_at) or on file since before any order
 * (no `*_at`, e.g. seeded). A value from a later order never counts for this one.
 */
const onFileBefore = (at: string | undefined, order: OrderItem): boolean => at === undefined || at < order.created_at;

/**
 * The SMS rules (spec B1, "SMS rules"; docs/fulfilment.md) as one decision per order, taken
 * from the order and the account as it was before this order touched it:
 *
 * - B1 (activation or top-up SMS): the phone number is the order's customer_phone, else the
 *   number on file when the order was created (rule 3); the consent is the order's explicit
 *   sms_opt_in (true or false), else the answer on file when the order was created (rule 2:
 *   omitting never revokes, an explicit false does). The SMS goes out only when both a number
 *   and consent === true result (rule 1); values that arrived after the order was created
 *   (a later order) never cause an SMS for it.
 * - B2: no SMS (customer_phone is unused for SMS on this flow).
 * - B3 (SMS receipt): only when the order itself has customer_phone and sms_opt_in === true
 *   (sms_opt_in defaults to false there and is never inferred, nor taken from the account).
 */
export const smsDecision = (order: OrderItem, accountBefore: AccountItem | undefined): SmsDecision => {
  if (order.endpoint === 'physical') return { to: null, reason: 'physical SIM orders get no SMS' };
  if (order.endpoint === 'iot') {
    if (!order.customer_phone) return { to: null, reason: 'no customer_phone on the order' };
    if (order.sms_opt_in !== true) return { to: null, reason: 'sms_opt_in is not true on the order' };
    return { to: order.customer_phone };
  }
  const phone =
    order.customer_phone ??
    (accountBefore?.phone && onFileBefore(accountBefore.phone_at, order) ? accountBefore.phone : undefined);
  const consent =
    order.sms_opt_in !== undefined
      ? order.sms_opt_in
      : accountBefore !== undefined && onFileBefore(accountBefore.sms_opt_in_at, order)
        ? accountBefore.sms_opt_in === true
        : false;
  if (!phone) return { to: null, reason: 'no phone number on the order or on file' };
  if (!consent) {
    return { to: null, reason: order.sms_opt_in === false ? 'sms_opt_in is false on the order' : 'no SMS consent on the order or on file' };
  }
  return { to: phone };
};
