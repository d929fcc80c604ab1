import { appendLogKeys, correlationId } from '../observability/invocation';
import { logger } from '../observability/logger';
import { recordMetric } from '../observability/metrics';
import type { CheckoutEndpoint, OrderItem } from '../db/items';
import { key } from '../db/keys';
import { ApiError } from '../errors/api-error';
import { readCheckoutItems } from './catalog';
import type { CheckoutDeps } from './deps';
import { checkCategoryRules, checkTopupDevices } from './esim-rules';
import { validateIdempotencyKey, withIdempotency, type StoredResponse } from '../idempotency/idempotency';
import { formatPence } from './money';
import { attachPaymentIntent, markOrderFailed, putOrder } from './orders';
import { checkTopupPlans, priceCart, subtotalPence, type PricedLine } from './pricing';
import { checkoutInputs, type CheckoutInput } from './requests';
import type { CheckoutResponseBody } from './response-schema';
import { holdStock, releaseStock } from './stock-holds';
import type { TaxCalculator, TaxResult } from './tax';

/** The 201 body of every checkout (spec "Checkout response"): the type of checkoutResponseSchema (./response-schema.ts). */
export type { CheckoutResponseBody } from './response-schema';

/** What a checkout answers: status and JSON body, and whether it replays an earlier response. */
export interface CheckoutOutcome {
  status: number;
  body: string;
  replayed: boolean;
}

/** One checkout request as the route hands it over. */
export interface CheckoutRequest {
  endpoint: CheckoutEndpoint;
  /** The parsed JSON body. */
  body: unknown;
  /** The Idempotency-Key header, if sent. */
  idempotencyKey?: string;
}

const logError = (message: string, details: Record<string, unknown>) => logger.error(message, details);

const errorDetails = (error: unknown) => {
  const value = error as { name?: string; message?: string; type?: string; code?: string; statusCode?: number; requestId?: string };
  return {
    name: value?.name,
    message: value?.message,
    type: value?.type,
    code: value?.code,
    statusCode: value?.statusCode,
    requestId: value?.requestId,
  };
};

/** VAT through the tax port; any failure of it (or a nonsensical answer) is 502 `tax_fail`. */
const computeTax = async (calculator: TaxCalculator, country: string, subtotal: number, orderId: string): Promise<TaxResult> => {
  try {
    const result = await calculator.calculate({ country, subtotalPence: subtotal });
    if (!Number.isSafeInteger(result.taxPence) || result.taxPence < 0 || typeof result.rate !== 'string') {
      throw new Error(`tax calculator answered ${JSON.stringify(result)}`);
    }
    return result;
  } catch (error) {
    logError('tax calculation failed', { order_id: orderId, error: errorDetails(error) });
    throw new ApiError(502, 'tax_fail', 'VAT could not be calculated for this order; try again later.');
  }
};

/** The stock a cart needs held: B1 one eSIM per unit of every non-top-up line, B2 physical SIMs, B3 none. */
const stockNeed = (endpoint: CheckoutEndpoint, priced: PricedLine[]) => {
  if (endpoint === 'iot') return undefined;
  const count = priced.filter(({ line }) => line.topupIccid === undefined).reduce((sum, { line }) => sum + line.quantity, 0);
  return { kind: endpoint === 'esim' ? ('esim' as const) : ('physical' as const), count };
};

const unique = (values: string[]) => [...new Set(values)];

/**
 * Places one order: reads plans, account and devices at once, then decides in the documented
 * order (unknown_sku, no_price, top-up plan rules, category rules, esim_not_found,
 * stripe_not_configured, tax_fail, out_of_stock), holds the stock, writes the `pending`
 * order, and only then creates the payment intent (idempotency key derived from the order
 * id). When the processor fails, the holds are released and the order is marked `failed`.
 */
export const placeOrder = async (deps: CheckoutDeps, input: CheckoutInput): Promise<CheckoutResponseBody> => {
  const { endpoint, lines, buyer } = input;
  const email = buyer.customer_email;
  const store = { db: deps.db, tableName: deps.tableName };

  const reads = await readCheckoutItems(deps.db, deps.tableName, {
    skus: unique(lines.map((line) => line.sku)),
    accountEmail: endpoint === 'esim' ? email : undefined,
    iccids: unique(lines.flatMap((line) => (line.topupIccid !== undefined ? [line.topupIccid] : []))),
  });
  const priced = priceCart(endpoint, lines, reads.plans);
  if (endpoint === 'esim') {
    checkTopupPlans(priced);
    checkCategoryRules(priced, email, reads.account);
    checkTopupDevices(priced, email, reads.devices);
  }

  const gateway = await deps.paymentGateway();
  if (!gateway) {
    throw new ApiError(503, 'stripe_not_configured', 'The payment processor is not configured in this environment.');
  }

  const orderId = deps.newOrderId();
  appendLogKeys({ order_id: orderId });
  const correlation = correlationId();
  const subtotal = subtotalPence(priced);
  const tax = await computeTax(deps.taxCalculator, buyer.customer_country, subtotal, orderId);
  const total = subtotal + tax.taxPence;

  const createdAt = deps.now();
  const nowSeconds = Math.floor(createdAt.getTime() / 1000);
  const holdExpiresAt = nowSeconds + Math.max(1, Math.round(deps.stockHoldMinutes * 60));
  const need = stockNeed(endpoint, priced);
  const held = need
    ? await holdStock(store, { kind: need.kind, count: need.count, orderId, now: nowSeconds, expiresAt: holdExpiresAt })
    : [];

  const order: OrderItem = {
    ...key.order(orderId),
    type: 'order',
    id: orderId,
    endpoint,
    status: 'pending',
    lines: priced.map(({ line, plan, unitPence, totalPence }) => ({
      sku: plan.sku,
      name: plan.name,
      category: plan.category,
      quantity: line.quantity,
      unit_price: formatPence(unitPence),
      line_total: formatPence(totalPence),
      ...(line.topupIccid !== undefined ? { topup_iccid: line.topupIccid } : {}),
    })),
    currency: 'GBP',
    subtotal: formatPence(subtotal),
    tax_amount: formatPence(tax.taxPence),
    amount_total: formatPence(total),
    amount_total_pence: total,
    vat_rate: tax.rate,
    vat_country: buyer.customer_country,
    ...buyer,
    customer_email_lower: email.toLowerCase(),
    held_units: held,
    ...(held.length > 0 ? { hold_expires_at: holdExpiresAt } : {}),
    created_at: createdAt.toISOString(),
    updated_at: createdAt.toISOString(),
    ...(correlation ? { correlation_id: correlation } : {}),
  };

  try {
    await putOrder(store, order);
  } catch (error) {
    await releaseStock(store, orderId, held).catch((releaseError) =>
      logError('stock release failed', { order_id: orderId, error: errorDetails(releaseError) }),
    );
    throw error;
  }

  let intent;
  try {
    intent = await gateway.createPaymentIntent({
      amount: total,
      currency: 'gbp',
      metadata: { order_id: orderId, endpoint },
      receiptEmail: email,
      description: `Order ${orderId}`,
      idempotencyKey: `order-${orderId}`,
    });
  } catch (error) {
    logError('payment intent creation failed', { order_id: orderId, error: errorDetails(error) });
    recordMetric('PaymentIntentsFailed', { code: errorDetails(error).code ?? errorDetails(error).type ?? 'unknown' });
    const now = deps.now().toISOString();
    const cleanups = await Promise.allSettled([releaseStock(store, orderId, held), markOrderFailed(store, orderId, 'stripe_error', now)]);
    for (const cleanup of cleanups) {
      if (cleanup.status === 'rejected') logError('cleanup after stripe_error failed', { order_id: orderId, error: errorDetails(cleanup.reason) });
    }
    throw new ApiError(502, 'stripe_error', 'The payment processor could not create the payment intent; try again later.');
  }

  recordMetric('PaymentIntentsCreated');
  await attachPaymentIntent(store, orderId, intent.id, deps.now().toISOString()).catch((error) =>
    // The intent carries metadata.order_id, so payment events still find the order.
    logError('payment intent id not stored on the order', { order_id: orderId, payment_intent_id: intent.id, error: errorDetails(error) }),
  );

  return {
    order_id: orderId,
    client_secret: intent.clientSecret,
    currency: 'GBP',
    subtotal: order.subtotal,
    tax_amount: order.tax_amount,
    amount_total: order.amount_total,
  };
};

/**
 * One storefront checkout (spec B1, B2, B3): validates the body (and the optional
 * Idempotency-Key header), then places the order, at most once per Idempotency-Key.
 */
export const checkout = async (deps: CheckoutDeps, request: CheckoutRequest): Promise<CheckoutOutcome> => {
  const input = checkoutInputs[request.endpoint](request.body);
  const idempotencyKey = validateIdempotencyKey(request.idempotencyKey);
  const execute = async (): Promise<StoredResponse> => {
    const body = await placeOrder(deps, input);
    return { status: 201, body: JSON.stringify(body), orderId: body.order_id };
  };
  if (idempotencyKey === undefined) return { ...(await execute()), replayed: false };
  const { response, replayed } = await withIdempotency(
    { db: deps.db, tableName: deps.tableName, now: deps.now },
    { endpoint: request.endpoint, idempotencyKey, body: request.body },
    execute,
  );
  return { status: response.status, body: response.body, replayed };
};
