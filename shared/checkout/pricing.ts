import type { CheckoutEndpoint, PlanItem } from '../db/items';
import { ApiError } from '../errors/api-error';
import { quoteInput } from '../errors/detail-text';
import { endpointCategories } from './catalog';
import { toPence } from './money';

/** A validated cart line, whatever the endpoint calls its SKU field. */
export interface CartLine {
  /** The request's name of the SKU field: `catalog_sku` (B1, B2) or `sku` (B3). */
  skuField: 'catalog_sku' | 'sku';
  sku: string;
  quantity: number;
  /** B1 only: the device a top-up line tops up. */
  topupIccid?: string;
}

/** A cart line matched to its plan and priced in pence. */
export interface PricedLine {
  line: CartLine;
  plan: PlanItem & { price: string };
  unitPence: number;
  totalPence: number;
}

const catalogNames: Record<CheckoutEndpoint, string> = {
  esim: 'eSIM',
  physical: 'physical SIM',
  iot: 'IoT contract',
};

const fieldOf = (line: CartLine, index: number) => `cart[${index}].${line.skuField}`;

/** True for the plan categories that top up an existing device. */
export const isTopupCategory = (category: PlanItem['category']): boolean =>
  category === 'business_topup' || category === 'travel_topup';

/**
 * Matches every line to a published plan of the endpoint's own categories and prices it in
 * exact pence. Any line without such a plan is 404 `unknown_sku` (checked for the whole cart
 * first), then any matched plan without a price is 422 `no_price`.
 */
export const priceCart = (endpoint: CheckoutEndpoint, lines: CartLine[], plans: Map<string, PlanItem>): PricedLine[] => {
  const categories = endpointCategories[endpoint];
  const matched = lines.map((line, index) => {
    const plan = plans.get(line.sku);
    if (!plan || !plan.published || !categories.includes(plan.category)) {
      throw new ApiError(
        404,
        'unknown_sku',
        `${fieldOf(line, index)} ${quoteInput(line.sku)} matches no published ${catalogNames[endpoint]} plan.`,
      );
    }
    return plan;
  });
  return lines.map((line, index) => {
    const plan = matched[index]!;
    if (plan.price === null || plan.price === undefined) {
      throw new ApiError(422, 'no_price', `${fieldOf(line, index)} ${quoteInput(line.sku)} has no price.`);
    }
    const unitPence = toPence(plan.price);
    return { line, plan: plan as PlanItem & { price: string }, unitPence, totalPence: unitPence * line.quantity };
  });
};

/**
 * B1: a line with topup_iccid must use a top-up plan (business_topup, travel_topup), and a
 * line without one must not: 400 `invalid_request` naming the line.
 */
export const checkTopupPlans = (priced: PricedLine[]): void => {
  priced.forEach(({ line, plan }, index) => {
    const topupPlan = isTopupCategory(plan.category);
    if (topupPlan && line.topupIccid === undefined) {
      throw new ApiError(
        400,
        'invalid_request',
        `cart[${index}].topup_iccid is required: ${quoteInput(line.sku)} is a top-up plan.`,
      );
    }
    if (!topupPlan && line.topupIccid !== undefined) {
      throw new ApiError(
        400,
        'invalid_request',
        `cart[${index}].topup_iccid is only allowed with a top-up plan; ${quoteInput(line.sku)} is not one.`,
      );
    }
  });
};

/** The sum of the line totals in pence. */
export const subtotalPence = (priced: PricedLine[]): number => priced.reduce((sum, line) => sum + line.totalPence, 0);
