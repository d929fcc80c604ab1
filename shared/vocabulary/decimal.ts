/**
 * Exact arithmetic on the seed's decimal strings ("12.50"), in integer hundredths, so that
 * sums such as a bundle's pool_used_mb never carry binary floating-point errors.
 */

/** A non-negative decimal string of at most 12 integer digits and two decimal places ("12", "12.5", "12.50"). */
export const decimalPattern = /^\d{1,12}(\.\d{1,2})?$/;

/** The value of a decimal string (matching `decimalPattern`) in hundredths. */
export const toHundredths = (value: string): bigint => {
  const [whole = '0', fraction = ''] = value.split('.');
  return BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0'));
};

/** A number of hundredths as a decimal string with exactly two decimal places. */
export const formatHundredths = (hundredths: bigint): string => {
  const whole = hundredths / 100n;
  const fraction = hundredths % 100n;
  return `${whole}.${String(fraction).padStart(2, '0')}`;
};

/** A decimal string rewritten with exactly two decimal places ("12.5" → "12.50", "012" → "12.00"). */
export const normaliseDecimal = (value: string): string => formatHundredths(toHundredths(value));
