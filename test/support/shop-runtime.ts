import { afterAll, beforeAll } from 'vitest';
import type { LocalRuntime } from '../../local/runtime';
import { startStandaloneStripeEmulator, type StandaloneStripeEmulator } from '../../local/stripe-emulator/standalone';
import { serviceToken, stripeTestKey } from '../area-b/support/checkout-api';
import { webhookSecret } from '../area-b-fulfilment/support/stripe-events';
import { startTestRuntime } from './runtime';

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
 * Starts the Stripe emulator, then the test runtime with `seed`, configured for Area B: the
 * test service token, the emulator as Stripe (STRIPE_SECRET_KEY, STRIPE_API_BASE) and the test
 * webhook secret, plus `env`. The emulator posts its events to this runtime's webhook route.
 * The one place where Area B suites get their runtime. Stop both in afterAll.
 */
export const startShopRuntime = async (seed: unknown, env: Record<string, string> = {}): Promise<ShopRuntime> => {
  let baseUrl: string | undefined;
  const stripe = await startStripeStandIn({ webhookUrl: () => baseUrl && `${baseUrl}/api/v1/webhooks/stripe` });
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
    baseUrl = runtime.baseUrl;
    return { runtime, stripe };
  } catch (error) {
    await stripe.stop();
    throw error;
  }
};

/**
 * A stand-in for a value made in beforeAll, usable at a suite's top level before it exists: every
 * property read (methods bound) goes to the value `bind` gave it; before that, a read throws.
 */
export const lateBound = <T extends object>(what: string): { value: T; bind(target: T | undefined): void } => {
  let target: T | undefined;
  const value = new Proxy({} as T, {
    get: (_, property) => {
      if (!target) throw new Error(`${what} is not started (it starts in beforeAll)`);
      const found = Reflect.get(target, property, target) as unknown;
      return typeof found === 'function' ? (found as (...args: unknown[]) => unknown).bind(target) : found;
    },
  });
  return { value, bind: (given) => (target = given) };
};

/**
 * The Area B suites' fixture: starts the shop runtime with `seed` and `env` in beforeAll
 * (startShopRuntime), runs `prepare` with it, and stops it, its Stripe stand-in and `db` in
 * afterAll. `runtime` and `stripe` can be named at the top level of the file: they are bound
 * when the runtime has started.
 */
export const useShopRuntime = (
  seed: unknown,
  options: { env?: Record<string, string>; db?: { destroy(): void }; prepare?: (shop: ShopRuntime) => Promise<void> } = {},
): ShopRuntime => {
  const runtime = lateBound<LocalRuntime>('the shop runtime');
  const stripe = lateBound<StripeStandIn>('the Stripe stand-in');
  let started: ShopRuntime | undefined;
  beforeAll(async () => {
    started = await startShopRuntime(seed, options.env);
    runtime.bind(started.runtime);
    stripe.bind(started.stripe);
    await options.prepare?.(started);
  });
  afterAll(async () => {
    await started?.runtime.stop();
    await started?.stripe.stop();
    options.db?.destroy();
  });
  return { runtime: runtime.value, stripe: stripe.value };
};
