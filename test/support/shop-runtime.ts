import type { LocalRuntime } from '../../local/runtime';
import { startStandaloneStripeEmulator, type StandaloneStripeEmulator } from '../../local/stripe-emulator/standalone';
import { serviceToken, stripeTestKey } from '../area-b/support/checkout-api';
import { webhookSecret } from '../area-b-fulfilment/support/stripe-events';
import { lateBound } from './late-bound';
import { useTestRuntime } from './runtime';

/**
 * The Stripe stand-in of the tests: the local runtime's Stripe emulator (local/stripe-emulator),
 * served at the root of a port of its own (STRIPE_API_BASE without a path), with its test-only
 * recorder (`requests`, `requestFor`) and fault switch (`setMode`), which no HTTP request reaches.
 */
export type StripeStandIn = StandaloneStripeEmulator;

/**
 * Starts a Stripe emulator on a free port, taking `secretKey` (default the Area B test key) and
 * signing its events with the test webhook secret. Its events go to `webhookUrl()` when that
 * gives a URL (read at each delivery); retries are quick (0.1 s doubling, 5 attempts).
 */
export const startStripeStandIn = (options: { secretKey?: string; webhookUrl?: () => string | undefined } = {}): Promise<StripeStandIn> =>
  startStandaloneStripeEmulator({
    secretKey: options.secretKey ?? stripeTestKey,
    webhookUrl: options.webhookUrl,
    webhookSecret: () => webhookSecret,
    delivery: { initialDelayMs: 100, maxDelayMs: 1000, maxAttempts: 5 },
    log: () => undefined,
  });

/** A local runtime for Area B tests and the Stripe stand-in it creates its payment intents on. */
export interface ShopRuntime {
  runtime: LocalRuntime;
  stripe: StripeStandIn;
}

/**
 * The Area B suites' fixture, the one place where they get their runtime: in beforeAll it starts
 * the Stripe emulator, then the test runtime (useTestRuntime) with `seed`, configured for Area B:
 * the test service token, the emulator as Stripe (STRIPE_SECRET_KEY, STRIPE_API_BASE) and the
 * test webhook secret, plus `env`; the emulator posts its events to this runtime's webhook route.
 * Then it runs `prepare` with both. In afterAll it stops the runtime, then the Stripe stand-in,
 * then `db`. `runtime` and `stripe` can be named at the top level of the file: they are bound
 * when the runtime has started.
 */
export const useShopRuntime = (
  seed: unknown,
  options: { env?: Record<string, string>; db?: { destroy(): void }; prepare?: (shop: ShopRuntime) => Promise<void> } = {},
): ShopRuntime => {
  const stripe = lateBound<StripeStandIn>('the Stripe stand-in');
  let standIn: StripeStandIn | undefined;
  let baseUrl: string | undefined;
  const runtime = useTestRuntime(
    async () => {
      standIn = await startStripeStandIn({ webhookUrl: () => baseUrl && `${baseUrl}/api/v1/webhooks/stripe` });
      return {
        seed,
        env: {
          STOREFRONT_SERVICE_TOKEN: serviceToken,
          STRIPE_SECRET_KEY: stripeTestKey,
          STRIPE_API_BASE: standIn.url,
          STRIPE_WEBHOOK_SECRET: webhookSecret,
          ...options.env,
        },
      };
    },
    {
      prepare: async (started) => {
        baseUrl = started.baseUrl;
        stripe.bind(standIn);
        await options.prepare?.({ runtime: started, stripe: standIn! });
      },
      stopAfter: async () => {
        await standIn?.stop();
        options.db?.destroy();
      },
    },
  );
  return { runtime, stripe: stripe.value };
};
