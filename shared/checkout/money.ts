/**
 * Exact money arithmetic in integer pence. Amounts never pass through binary floating point:
 * decimal strings are parsed digit by digit into pence and formatted back with two decimals.
 */

const decimalPattern = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

/**
 * Parses a GBP decimal string ("12", "12.5", "12.50") into integer pence. Throws on anything
 * else: a malformed stored price is a data error, never a guess.
 */
export const toPence = (amount: string): number => {
  const match = decimalPattern.exec(amount);
  if (!match) throw new Error(`not a GBP decimal amount: ${JSON.stringify(amount)}`);
  const pounds = Number(match[1]);
  const pence = Number((match[2] ?? '').padEnd(2, '0'));
  return pounds * 100 + pence;
};

/** Formats integer pence as a decimal string with exactly two decimals ("1234" → "12.34"). */
export const formatPence = (pence: number): string => {
  if (!Number.isSafeInteger(pence) || pence < 0) throw new Error(`not a non-negative integer amount of pence: ${pence}`);
  const text = String(pence).padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
};

/**
 * `pence × basisPoints / 10 000`, rounded half-up to the penny (a rate of 25.5% is 2550 basis
 * points). Computed with BigInt, so it is exact for any amount.
 */
export const percentOfPence = (pence: number, basisPoints: number): number => {
  if (!Number.isSafeInteger(pence) || pence < 0) throw new Error(`not a non-negative integer amount of pence: ${pence}`);
  if (!Number.isSafeInteger(basisPoints) || basisPoints < 0) throw new Error(`not a rate in basis points: ${basisPoints}`);
  const product = BigInt(pence) * BigInt(basisPoints);
  return Number((product + 5_000n) / 10_000n);
};

/** A rate in basis points as a percentage string without trailing zeros (2000 → "20", 2550 → "25.5"). */
export const formatBasisPoints = (basisPoints: number): string => {
  const whole = Math.trunc(basisPoints / 100);
  const fraction = String(basisPoints % 100).padStart(2, '0').replace(/0+$/, '');
  return fraction === '' ? String(whole) : `${whole}.${fraction}`;
};
