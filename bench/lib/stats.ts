/** Small statistics over samples (milliseconds, counts). */

/** The samples sorted ascending (a copy). */
const sorted = (samples: readonly number[]): number[] => [...samples].sort((left, right) => left - right);

/**
 * The p-th percentile (0 < p ≤ 100) by the nearest-rank method: the smallest sample with at
 * least p% of the samples at or below it. NaN for no samples.
 */
export const percentile = (samples: readonly number[], p: number): number => {
  if (samples.length === 0) return Number.NaN;
  const ordered = sorted(samples);
  const rank = Math.max(1, Math.ceil((p / 100) * ordered.length));
  return ordered[rank - 1]!;
};

/** The median (for an even count, the mean of the two middle samples). NaN for no samples. */
export const median = (samples: readonly number[]): number => {
  if (samples.length === 0) return Number.NaN;
  const ordered = sorted(samples);
  const middle = Math.floor(ordered.length / 2);
  return ordered.length % 2 === 1 ? ordered[middle]! : (ordered[middle - 1]! + ordered[middle]!) / 2;
};

/** A number rounded to `digits` decimals (for reports). */
export const round = (value: number, digits = 2): number => {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/** Bytes as KiB with one decimal. */
export const kib = (bytes: number): number => round(bytes / 1024, 1);

/** A count in millions with one decimal (instruction counts). */
export const millions = (count: number): number => round(count / 1e6, 1);
