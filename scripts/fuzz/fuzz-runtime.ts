/**
 * The runtime a fuzz run attacks when it starts its own: the local runtime with the fuzz
 * seed (context.ts) and the local Stripe emulator (local/stripe-emulator) served on a port of its own as STRIPE_API_BASE, so that valid checkouts
 * are 201 and nothing the environment lacks answers with one of the spec's own 5xx codes
 * (`stripe_not_configured`, `sms_not_configured`): every 5xx is then a finding.
 */
import type { LocalRuntime } from '../../local/runtime';
import { startStandaloneStripeEmulator } from '../../local/stripe-emulator/standalone';
import { fuzzSeedContext, fuzzSeedDocument, type FuzzContext } from './context';

/** The secret key the fuzz runtime's Stripe emulator takes. */
const fuzzStripeKey = 'sk_test_fuzz_0000000000000000000000';

/** A running fuzz target. */
export interface FuzzRuntime {
  runtime: LocalRuntime;
  context: FuzzContext;
  stop(): Promise<void>;
}

/** How to start the local runtime with a seed and handler environment (the test helper or startLocalRuntime). */
export type RuntimeStarter = (options: { seed: unknown; env: Record<string, string> }) => Promise<LocalRuntime>;

/** Starts the Stripe stand-in and a runtime with the fuzz seed. */
export const startFuzzRuntime = async (start: RuntimeStarter): Promise<FuzzRuntime> => {
  const stripe = await startStandaloneStripeEmulator({ secretKey: fuzzStripeKey });
  let runtime: LocalRuntime;
  try {
    runtime = await start({
      seed: fuzzSeedDocument(),
      env: { STRIPE_SECRET_KEY: fuzzStripeKey, STRIPE_API_BASE: stripe.url },
    });
  } catch (error) {
    await stripe.stop();
    throw error;
  }
  const env = runtime.env;
  const context = fuzzSeedContext({
    STOREFRONT_SERVICE_TOKEN: env.STOREFRONT_SERVICE_TOKEN!,
    STRIPE_WEBHOOK_SECRET: env.STRIPE_WEBHOOK_SECRET!,
    SMS_RECEIPT_SECRET: env.SMS_RECEIPT_SECRET!,
  });
  return {
    runtime,
    context,
    stop: async () => {
      await runtime.stop();
      await stripe.stop();
    },
  };
};
