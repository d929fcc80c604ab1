/**
 * Bounds on what an error's detail repeats of the request (issue #22): a detail names the
 * offending value so that a client can find it, but a value of 200,000 characters, or an
 * array nested 5,000 deep, must not come back whole (or exhaust the stack on the way).
 */

/** At most this many characters (code points) of one input value are quoted in a detail. */
export const maxQuotedCharacters = 64;

/** No detail is longer than this many characters (ApiError cuts a longer one). */
export const maxDetailLength = 512;

/**
 * One input value as a detail quotes it: a string as JSON text of at most 64 characters,
 * followed by `… (N characters)` when it was longer; a number, boolean or null as itself;
 * an array or object by its kind only (never serialised, so no depth can exhaust the stack).
 */
export const quoteInput = (value: unknown): string => {
  if (typeof value === 'string') {
    let end = 0;
    let count = 0;
    for (const character of value) {
      if (count === maxQuotedCharacters) break;
      end += character.length;
      count += 1;
    }
    if (end === value.length) return JSON.stringify(value);
    return `${JSON.stringify(value.slice(0, end))}… (${value.length} characters)`;
  }
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
};

/** A detail cut to maxDetailLength characters (ending in `…`), never inside a surrogate pair. */
export const boundedDetail = (detail: string): string => {
  if (detail.length <= maxDetailLength) return detail;
  let end = maxDetailLength - 1;
  const last = detail.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${detail.slice(0, end)}…`;
};
