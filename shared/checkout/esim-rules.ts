import type { AccountItem, DeviceItem } from '../db/items';
import { ApiError } from '../errors/api-error';
import { isFreeEmailAddress } from './free-email';
import type { PricedLine } from './pricing';

const isBusiness = (line: PricedLine) => line.plan.category.startsWith('business_');
const isTravel = (line: PricedLine) => line.plan.category.startsWith('travel');

/**
 * B1 category rules, in this order: Business plans with Travel plans in one cart is 400
 * `mixed_cart_not_allowed`; a Business cart with an e-mail on a free or personal provider
 * is 422 `business_email_required`; a Business cart whose e-mail belongs to an existing
 * consumer or traveler account is 403 `business_purchase_not_allowed` (an account is never
 * upgraded to Business by a purchase).
 */
export const checkCategoryRules = (priced: PricedLine[], email: string, account: AccountItem | undefined): void => {
  const business = priced.some(isBusiness);
  if (business && priced.some(isTravel)) {
    throw new ApiError(400, 'mixed_cart_not_allowed', 'A cart may not mix Business plans with Travel plans.');
  }
  if (!business) return;
  if (isFreeEmailAddress(email)) {
    throw new ApiError(
      422,
      'business_email_required',
      'customer_email must be a business address for Business plans, not one of a free or personal e-mail provider.',
    );
  }
  if (account && (account.account_type === 'consumer' || account.account_type === 'traveler')) {
    throw new ApiError(
      403,
      'business_purchase_not_allowed',
      'customer_email belongs to an existing consumer or traveler account, which cannot buy Business plans.',
    );
  }
};

const sameEmail = (a: string | null | undefined, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();

/**
 * B1 top-up rule: the device of every top-up line matches customer_email either (a) as its
 * owner's account e-mail (a consumer's or traveler's own device, or a Business owner's fleet
 * device, assigned or not) or (b) as the team member it is currently assigned to. An ICCID
 * that does not exist and one that matches neither way are the same 404 `esim_not_found`.
 */
export const checkTopupDevices = (priced: PricedLine[], email: string, devices: Map<string, DeviceItem>): void => {
  priced.forEach(({ line }, index) => {
    if (line.topupIccid === undefined) return;
    const device = devices.get(line.topupIccid);
    if (!device || !(sameEmail(device.owner, email) || sameEmail(device.assigned_to, email))) {
      throw new ApiError(
        404,
        'esim_not_found',
        `cart[${index}].topup_iccid matches no eSIM owned by or assigned to customer_email.`,
      );
    }
  });
};
