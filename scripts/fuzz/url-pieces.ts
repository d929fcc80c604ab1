/**
 * Paths and query strings for the fuzz generator: percent-encoding that can carry lone
 * surrogates (WTF-8 bytes, which no WHATWG encoder produces), raw characters, broken
 * escapes, odd path segments and query parameter names that are also JavaScript's
 * prototype keys.
 */
import { oddString } from './odd-values';
import type { Rng } from './prng';

const hex = (byte: number) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;

/**
 * Percent-encodes every character outside [A-Za-z0-9-._~] as its UTF-8 bytes; a lone
 * surrogate becomes its three WTF-8 bytes (ED A0 80 for U+D800), which decoders refuse.
 */
export const percentEncode = (text: string): string => {
  let out = '';
  for (let index = 0; index < text.length; index += 1) {
    const code = text.codePointAt(index)!;
    if (code > 0xffff) index += 1;
    const char = String.fromCodePoint(code);
    if (/^[A-Za-z0-9\-._~]$/.test(char)) {
      out += char;
    } else if (code >= 0xd800 && code <= 0xdfff) {
      out += hex(0xe0 | (code >> 12)) + hex(0x80 | ((code >> 6) & 0x3f)) + hex(0x80 | (code & 0x3f));
    } else {
      for (const byte of Buffer.from(char, 'utf8')) out += hex(byte);
    }
  }
  return out;
};

/** A value as it goes into a URL: percent-encoded (mostly), raw, or with '/' and '?' kept raw. */
export const urlText = (rng: Rng, value: string): string =>
  rng.weighted<() => string>([
    [7, () => percentEncode(value)],
    [2, () => value.replace(/[\u0000-\u0020#?/%]/g, (char) => percentEncode(char))],
    [1, () => value],
  ])();

/** A path segment: the plausible value (mostly), a wrong one, or an odd string. */
export const segment = (rng: Rng, plausible: readonly string[]): string =>
  rng.weighted<() => string>([
    [5, () => rng.pick(plausible)],
    [5, () => urlText(rng, oddString(rng, rng.pick(plausible)))],
    [1, () => rng.pick(['.', '..', '%2e%2e', '%2F', '%2f..%2f', '', ' ', '%20', '%', '%zz', '%C0%AF', '%FF', '%ED%A0%80', '%EF%BF%BF'])],
    [1, () => '9'.repeat(rng.pick([20, 21, 30, 400, 2_045, 4_096]))],
  ])();

/** Query parameter names that are also keys of Object.prototype, and other odd names. */
const oddNames: readonly string[] = [
  'constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__',
  'prototype', '', 'page[]', 'page[0]', 'a[b]', 'PAGE', 'Page', 'page ', ' page',
];

/**
 * A query string: route parameters with odd values (each name possibly repeated), odd names,
 * and broken forms (`&&`, `=x`, `%zz`, a bare `?`). `values` maps each parameter the route
 * reads to plausible values.
 */
export const queryString = (rng: Rng, values: Record<string, readonly string[]>): string => {
  if (rng.chance(0.25)) return '';
  const names = Object.keys(values);
  const parts: string[] = [];
  const count = rng.int(1, 4);
  for (let index = 0; index < count; index += 1) {
    const kind = rng.weighted<string>([[6, 'route'], [3, 'odd-name'], [1, 'broken']]);
    if (kind === 'route' && names.length > 0) {
      const name = rng.pick(names);
      const value = rng.chance(0.5) ? rng.pick(values[name]!) : oddString(rng, rng.pick(values[name]!));
      parts.push(`${name}=${urlText(rng, value)}`);
    } else if (kind === 'odd-name') {
      const name = rng.chance(0.8) ? rng.pick(oddNames) : oddString(rng);
      parts.push(`${urlText(rng, name)}=${urlText(rng, oddString(rng))}`);
    } else {
      parts.push(rng.pick(['', '&', '=', '==', '=x', '%zz=1', 'a=%', 'a=%E0%A4%A', '+=+', 'a&a&a', 'x'.repeat(9_000)]));
    }
  }
  return `?${parts.join('&')}`;
};
