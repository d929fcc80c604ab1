import type { LocalRuntime } from '../../local/runtime';
import { serviceToken, stripeTestKey } from '../area-b/support/checkout-api';
import { startFakeStripe, type FakeStripe } from '../area-b/support/fake-stripe';
import { webhookSecret } from '../area-b-fulfilment/support/stripe-events';
import { startTestRuntime } from './runtime';

/** A local runtime for Area B tests and the Stripe stand-in it creates its payment intents on. */
export interface ShopRuntime {
  runtime: LocalRuntime;
  stripe: FakeStripe;
}

/**
 * Starts the Stripe stand-in, then the test runtime with `seed`, configured for Area B: the
 * test service token, the stand-in as Stripe (STRIPE_SECRET_KEY, STRIPE_API_BASE) and the test
 * webhook secret, plus `env`. The one place where Area B suites get their runtime, so that a
 * different Stripe stand-in is swapped in here alone. Stop both in afterAll.
 */
export const startShopRuntime = async (seed: unknown, env: Record<string, string> = {}): Promise<ShopRuntime> => {
  const stripe = await startFakeStripe();
  try {
    const runtime = await startTestRuntime({
      seed,
      env: {
        STOREFRONT_SERVICE_TOKEN: serviceToken,
        STRIPE_SECRET_KEY: stripeTestKey,
        STRIPE_API_BASE: stripe.url,
        STRIPE_WEBHOOK_SECRET: webhookSecret,
        ...env,
      },
    });
    return { runtime, stripe };
  } catch (error) {
    await stripe.stop();
    throw error;
  }
};
