/**
 * Configuration of the storefront checkouts (Area B), read from the environment. Kept beside
 * ./env.ts, which holds what every function needs. Secrets (STOREFRONT_SERVICE_TOKEN,
 * STRIPE_SECRET_KEY) are not here: see ./secrets.ts.
 */
export interface CheckoutConfig {
  /** Base URL of a Stripe-compatible API (STRIPE_API_BASE); unset means Stripe itself. */
  stripeApiBase?: string;
  /** How long a checkout's stock hold lasts (STOCK_HOLD_MINUTES, default 30; fractions allowed). */
  stockHoldMinutes: number;
}

/** Default of STOCK_HOLD_MINUTES. */
export const defaultStockHoldMinutes = 30;

/** Reads the checkout configuration; a STOCK_HOLD_MINUTES that is not a positive number is refused. */
export const readCheckoutConfig = (env: NodeJS.ProcessEnv = process.env): CheckoutConfig => {
  const minutesText = env.STOCK_HOLD_MINUTES;
  const stockHoldMinutes = minutesText === undefined || minutesText === '' ? defaultStockHoldMinutes : Number(minutesText);
  if (!Number.isFinite(stockHoldMinutes) || stockHoldMinutes <= 0) {
    throw new Error(`STOCK_HOLD_MINUTES must be a positive number of minutes, not ${JSON.stringify(minutesText)}`);
  }
  const stripeApiBase = env.STRIPE_API_BASE || undefined;
  if (stripeApiBase !== undefined) new URL(stripeApiBase); // a malformed base fails loudly here
  return { stripeApiBase, stockHoldMinutes };
};
