/**
 * The fuzz generator: request `index` of the run seeded `runSeed`, built from its own seeded
 * stream (prng.ts), so it is the same on every run and can be regenerated alone. Only the
 * timestamp inside a Stripe-Signature depends on the clock.
 */
import type { FuzzContext } from './context';
import type { FuzzRequest } from './fuzz-request';
import { createRng, requestSeed } from './prng';
import { protocolOddity } from './protocol';
import { routeGenerators, type RouteInput } from './routes';

/** Share of requests that are odd at the HTTP level rather than aimed at a route. */
const protocolShare = 0.04;

/** Request `index` of the run seeded `runSeed`. */
export const generateRequest = (context: FuzzContext, runSeed: number, index: number, nowMs = Date.now()): FuzzRequest => {
  const rng = createRng(requestSeed(runSeed, index));
  const input: RouteInput = { rng, context, runSeed, index, nowSeconds: Math.floor(nowMs / 1000) };
  const generator = rng.chance(protocolShare) ? protocolOddity : rng.weighted(routeGenerators);
  return { index, ...generator(input) };
};
