/**
 * The fuzz harness's only source of randomness: a small seeded PRNG (SplitMix32 seeding a
 * Mulberry32 stream). Every request is generated from its own stream, seeded from the run's
 * seed and the request's index, so request k of seed S is the same bytes on every machine and
 * can be regenerated alone (`npm run fuzz -- --seed S --index k`).
 */

/** A deterministic random stream with the helpers the generators need. */
export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** One element, by weight: [[weight, value], ...]. */
  weighted<T>(items: ReadonlyArray<readonly [number, T]>): T;
}

const mix32 = (value: number): number => {
  let z = (value + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
};

/** The seed of request `index` of a run seeded with `runSeed` (an unsigned 32-bit integer). */
export const requestSeed = (runSeed: number, index: number): number => mix32(mix32(runSeed >>> 0) ^ mix32(index + 1));

/** A Mulberry32 stream from a 32-bit seed. */
export const createRng = (seed: number): Rng => {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    chance: (p) => next() < p,
    pick: (items) => items[int(0, items.length - 1)]!,
    weighted: (items) => {
      const total = items.reduce((sum, [weight]) => sum + weight, 0);
      let roll = next() * total;
      for (const [weight, value] of items) {
        roll -= weight;
        if (roll < 0) return value;
      }
      return items[items.length - 1]![1];
    },
  };
};
