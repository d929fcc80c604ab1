/**
 * Exact formatting of the stored decimal strings (GBP amounts and megabytes, "12.50") as the
 * API shows them, in integer hundredths: no binary floating point anywhere. In vocabulary/
 * beside decimal.ts, as sims/ (the SIM object) and sim-lists/ (pool usage) both use it.
 */

const decimalPattern = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Whether `value` is a decimal string that `toHundredths` reads ("12.50", "7", "-0.5"). */
export const isDecimalAmount = (value: unknown): value is string => typeof value === 'string' && decimalPattern.test(value.trim());

/**
 * The value of a decimal string in hundredths (pence, or hundredths of a MB). A third
 * decimal place and beyond rounds half away from zero; anything that is not a decimal
 * number is a data error and throws.
 */
export const toHundredths = (value: string): bigint => {
  const match = decimalPattern.exec(value.trim());
  if (!match) throw new Error(`not a decimal amount: ${JSON.stringify(value)}`);
  const [, sign, whole, fraction = ''] = match;
  const digits = `${fraction}000`;
  let hundredths = BigInt(whole!) * 100n + BigInt(digits.slice(0, 2));
  if (Number(digits[2]) >= 5) hundredths += 1n;
  return sign === '-' ? -hundredths : hundredths;
};

/** Hundredths as a plain decimal string with two decimal places: 1250n → "12.50". */
export const formatDecimal = (hundredths: bigint): string => {
  const negative = hundredths < 0n;
  const magnitude = negative ? -hundredths : hundredths;
  return `${negative ? '-' : ''}${magnitude / 100n}.${String(magnitude % 100n).padStart(2, '0')}`;
};

/** Pence as a GBP amount with the pound sign: 500n → "£5.00", -150n → "-£1.50". */
export const formatGbp = (pence: bigint): string => (pence < 0n ? `-£${formatDecimal(-pence)}` : `£${formatDecimal(pence)}`);

/** A stored decimal string in MB, as the API shows it: two decimal places ("12.5" → "12.50"). */
export const megabytes = (value: string): string => formatDecimal(toHundredths(value));

/** A stored GBP decimal string, as the API shows it: "5" → "£5.00". */
export const pounds = (value: string): string => formatGbp(toHundredths(value));
