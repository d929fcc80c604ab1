/**
 * Odd strings and odd JSON values: what a careless or hostile client sends where a field,
 * a path segment, a query value or a header is expected. Lone surrogates, U+FFFE / U+FFFF,
 * control characters, very long strings, strings that look like other types or like
 * prototype keys, wrong JSON types, numbers JavaScript cannot hold and deep nesting.
 */
import { key, partition } from '../../shared/db/keys';
import type { JsonNode } from './json-text';
import { node } from './json-text';
import type { Rng } from './prng';

/** Fragments that break assumptions about text. */
const oddFragments: readonly string[] = [
  '', ' ', '\t', '\u00a0', '\u2028', '\u2029', '\u3000',
  '\ud800', '\udfff', '\udc00\ud800', 'ab\ud83dcd', '\ud83d', // lone or reversed surrogates
  '\ufffe', '\uffff', '\ufeff', '\ufffd', '\u{10ffff}', '\u{1fffe}',
  '\u0000', '\u0001', '\u0007', '\u0008', '\u001b', '\u001f', '\u007f', '\u0085', '\u009f',
  '\r\n', '\n', '\r', '\u000b', '\u000c',
  '😀', '👩‍👩‍👧‍👦', 'e\u0301', '\u202e', '\u200b', '\u200d', '漢字', '𝕏', 'ß', 'İ', 'ﷺ',
  '0', '1', '-1', '1.5', '1e309', '-0', 'NaN', 'Infinity', 'null', 'true', 'false', '[]', '{}', 'undefined',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf',
  '../', '..%2f', '%', '%00', '%ff', '%ed%a0%80', '%EF%BF%BE', '+', '&', '=', '?', '#', '/', '\\', ';', ',', '*',
  '<script>alert(1)</script>', "' OR '1'='1", '"', '${jndi:ldap://x}', '{{7*7}}', '%s%n', '\\u0000',
  'PK', key.sim(1001).PK, key.message('x').PK, partition.order(''), '#', // keys as shared/db/keys.ts builds them 'gid://shopify/Customer/1',
  'a@b', '@', 'x@example.com\r\nBcc: y@example.com', 'UPPER@EXAMPLE.COM', 'a@gmail.com',
  '+447700900001', '+', '447700900001', '8944500000000001001', '89445000000000010011',
  '2026-13-45T25:61:61Z', '0000-01-01T00:00:00Z', '9999-12-31T23:59:59+14:00', '2026-11-20T10:00:00.123456789Z', '1970-01-01',
];

/** Characters repeated to make long strings. */
const fillers: readonly string[] = ['a', '9', 'é', '\ud800', '\ufffe', '😀', '\u0001', ' ', '%', '\u200b'];

/** Lengths around the limits the service declares (48, 160, 200, 2048, 2 KB keys, 400 KB items). */
const longLengths: ReadonlyArray<readonly [number, number]> = [
  [6, 49], [6, 161], [4, 201], [3, 1025], [4, 2049], [3, 4097], [2, 20_000], [1, 70_000], [1, 400_001],
];

/** A long string: one filler repeated to a length near a limit (in UTF-16 units, roughly). */
export const longString = (rng: Rng, lengths = longLengths): string => {
  const length = rng.weighted(lengths);
  const filler = rng.pick(fillers);
  return filler.repeat(Math.ceil(length / filler.length)).slice(0, Math.max(length, 1));
};

/** An odd string: one to three odd fragments, sometimes around a plausible value, sometimes long. */
export const oddString = (rng: Rng, plausible?: string): string => {
  if (rng.chance(0.15)) return longString(rng);
  const parts: string[] = [];
  const count = rng.int(1, 3);
  for (let index = 0; index < count; index += 1) parts.push(rng.pick(oddFragments));
  if (plausible !== undefined && rng.chance(0.5)) parts.splice(rng.int(0, parts.length), 0, plausible);
  return parts.join('');
};

/** Number forms, as JSON text: some JavaScript reads as Infinity, -0, or loses precision. */
const numberTexts: readonly string[] = [
  '0', '-0', '1', '-1', '1.5', '0.1', '10', '11', '21', '100', '101', '1e3', '1E2', '1e400', '-1e400', '1e-400',
  '9007199254740993', '18446744073709551616', '1' + '0'.repeat(400), '0.' + '0'.repeat(300) + '1', '2147483648', '-2147483649',
];

/** Lengths of a string inside an array (an event name, a cart line's field): up to 400,001 characters. */
const itemLengths: ReadonlyArray<readonly [number, number]> = [[1, 2_049], [1, 70_000], [2, 200_001], [1, 400_001]];

/**
 * An array field's extreme: one item nested 1,000 to 100,000 deep, or one string of 2,049 to
 * 400,001 characters (issue #22: an `events` array of either once answered 500, or a 200 KB
 * detail quoting the name whole).
 */
export const extremeArray = (rng: Rng): JsonNode => ({
  kind: 'array',
  items: [rng.chance(0.5) ? deepValue(rng) : node(longString(rng, itemLengths))],
});

/** An odd JSON value of any type (wrong types for every field). */
export const oddValue = (rng: Rng, plausible?: string): JsonNode =>
  rng.weighted<() => JsonNode>([
    [4, () => extremeArray(rng)],
    [30, () => node(oddString(rng, plausible))],
    [12, () => ({ kind: 'literal', text: rng.pick(numberTexts) })],
    [6, () => node(rng.pick([true, false, null]))],
    [6, () => node([])],
    [6, () => node({})],
    [6, () => ({ kind: 'array', items: [oddValue(rng), oddValue(rng)] })],
    [6, () => ({ kind: 'object', entries: [[oddString(rng), oddValue(rng)]] })],
    [4, () => deepValue(rng)],
    [3, () => ({ kind: 'array', items: Array.from({ length: rng.int(21, 3000) }, () => node(plausible ?? 1)) })],
  ])();

/** Depths that exhaust recursive code (JSON.stringify, canonical JSON, validators). */
const depths: ReadonlyArray<readonly [number, number]> = [[3, 50], [3, 1_000], [3, 5_000], [4, 10_000], [2, 100_000]];

/** A deeply nested array or object. */
export const deepValue = (rng: Rng): JsonNode => ({
  kind: 'deep',
  depth: rng.weighted(depths),
  shape: rng.chance(0.5) ? 'array' : 'object',
  leaf: node(rng.pick([1, 'x', null, {}])),
});
