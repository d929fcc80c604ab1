/**
 * JSON bodies for the fuzz generator: a plausible body of each route (so that most requests
 * pass validation and reach the domain), mutated in one to three places (a field given an
 * odd value of any type, removed, duplicated, or joined by odd or prototype-named fields and
 * deep nesting), or replaced as a whole by something that is not that route's JSON at all.
 */
import { jsonText, node, type JsonNode } from './json-text';
import { deepValue, longString, oddString, oddValue } from './odd-values';
import type { Rng } from './prng';

type ObjectNode = Extract<JsonNode, { kind: 'object' }>;

/** Every object node of a tree down to `depth` levels (arrays are walked through). */
const objectsOf = (value: JsonNode, depth = 4, found: ObjectNode[] = []): ObjectNode[] => {
  if (depth < 0) return found;
  if (value.kind === 'object') {
    found.push(value);
    for (const [, entry] of value.entries) objectsOf(entry, depth - 1, found);
  } else if (value.kind === 'array') {
    for (const item of value.items) objectsOf(item, depth - 1, found);
  }
  return found;
};

const plausibleText = (value: JsonNode): string | undefined =>
  value.kind === 'string' ? value.value : value.kind === 'literal' ? value.text : undefined;

const fieldNames: readonly string[] = ['__proto__', 'constructor', 'toString', 'prototype', 'hasOwnProperty', 'unknown_field', '', 'PK', 'type'];

/** Mutates a body tree in place, one to three times. */
export const mutate = (rng: Rng, body: JsonNode): void => {
  const count = rng.weighted([[5, 1], [3, 2], [2, 3]] as const);
  for (let time = 0; time < count; time += 1) {
    const objects = objectsOf(body);
    if (objects.length === 0) return;
    const target = rng.pick(objects);
    const at = target.entries.length > 0 ? rng.int(0, target.entries.length - 1) : -1;
    const operation = at === -1 ? 'add' : rng.weighted<string>([[10, 'set'], [3, 'delete'], [3, 'add'], [1, 'duplicate'], [1, 'deep']]);
    if (operation === 'set') {
      const [name, value] = target.entries[at]!;
      target.entries[at] = [name, oddValue(rng, plausibleText(value))];
    } else if (operation === 'delete') {
      target.entries.splice(at, 1);
    } else if (operation === 'duplicate') {
      const [name] = target.entries[at]!;
      target.entries.push([name, oddValue(rng)]);
    } else if (operation === 'deep') {
      target.entries.push([rng.pick(['ignored', 'note', 'metadata']), deepValue(rng)]);
    } else {
      target.entries.push([rng.chance(0.6) ? rng.pick(fieldNames) : oddString(rng), oddValue(rng)]);
    }
  }
};

/** Invalid UTF-8 sequences: a stray byte, an overlong NUL, an encoded surrogate, a truncated character. */
const invalidUtf8: readonly number[][] = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80]];

/**
 * The bytes of a body: mostly the (mutated) JSON text, else something else entirely: empty,
 * another JSON type, broken JSON, a byte-order mark, invalid UTF-8 inside a string, UTF-16,
 * a form, deep nesting at the top, or a body of megabytes.
 */
export const bodyBytes = (rng: Rng, body: JsonNode): Buffer => {
  const text = jsonText(body);
  return rng.weighted<() => Buffer>([
    [40, () => Buffer.from(text, 'utf8')],
    [2, () => Buffer.alloc(0)],
    [3, () => Buffer.from(rng.pick(['null', 'true', '0', '-1', '"x"', '[]', '{}', '[null]', '1e400', '""']), 'utf8')],
    [2, () => Buffer.from(rng.pick(['{', '{"a":1', `${text}garbage`, `${text}${text}`, text.slice(0, -1), "{'a':1}", '{"a":NaN}', '{"a":undefined}', '\u0000']), 'utf8')],
    [1, () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])],
    [2, () => {
      const at = Math.max(text.indexOf('":"') + 3, 0);
      return Buffer.concat([Buffer.from(text.slice(0, at), 'utf8'), Buffer.from(rng.pick(invalidUtf8)), Buffer.from(text.slice(at), 'utf8')]);
    }],
    [1, () => Buffer.from(text, 'utf16le')],
    [1, () => Buffer.from('message=hi&cart=1', 'utf8')],
    [2, () => Buffer.from(jsonText(deepValue(rng)), 'utf8')],
    [1, () => Buffer.from(jsonText({ kind: 'array', items: [body, body] }), 'utf8')],
    [1, () => {
      const padded: JsonNode = body.kind === 'object' ? { kind: 'object', entries: [...body.entries, ['padding', node(longString(rng, [[1, 1_000_000], [1, 3_000_000]]))]] } : body;
      return Buffer.from(jsonText(padded), 'utf8');
    }],
  ])();
};

/** A plausible body, mutated or not, as bytes: `mutationRate` of the bodies are mutated. */
export const fuzzBody = (rng: Rng, plausible: unknown, mutationRate = 0.8): { bytes: Buffer; mutated: boolean } => {
  const tree = node(plausible);
  const mutated = rng.chance(mutationRate);
  if (mutated) mutate(rng, tree);
  return { bytes: bodyBytes(rng, tree), mutated };
};
