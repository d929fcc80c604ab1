/**
 * JSON documents as the fuzz harness builds them: a small tree whose objects are lists of
 * entries, so that a body may carry duplicate keys, keys such as `__proto__`, number forms
 * that JavaScript cannot hold (`1e400`, `-0`, 400 digits) and nesting deeper than any
 * recursive serialiser could write. `jsonText` writes it without recursion on the deep parts.
 */

/** One JSON value. */
export type JsonNode =
  | { kind: 'literal'; text: string }
  | { kind: 'string'; value: string }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'object'; entries: Array<[string, JsonNode]> }
  /** `depth` nested arrays (`[[[...leaf...]]]`) or objects (`{"a":{"a":...leaf...}}`). */
  | { kind: 'deep'; depth: number; shape: 'array' | 'object'; leaf: JsonNode };

/** A JSON node from a plain JavaScript value (objects keep their key order). */
export const node = (value: unknown): JsonNode => {
  if (value === null || value === undefined) return { kind: 'literal', text: 'null' };
  if (typeof value === 'string') return { kind: 'string', value };
  if (typeof value === 'number' || typeof value === 'boolean') return { kind: 'literal', text: JSON.stringify(value) };
  if (Array.isArray(value)) return { kind: 'array', items: value.map(node) };
  if (typeof value === 'object' && 'kind' in (value as object)) return value as JsonNode;
  return { kind: 'object', entries: Object.entries(value as Record<string, unknown>).map(([name, entry]) => [name, node(entry)]) };
};

/**
 * The JSON text of a node. Strings are written as JSON.stringify writes them: lone surrogates
 * as `\udXXX` escapes (so the server's JSON.parse gets them back), every other character,
 * U+FFFE and U+FFFF included, as itself.
 */
export const jsonText = (value: JsonNode): string => {
  switch (value.kind) {
    case 'literal':
      return value.text;
    case 'string':
      return JSON.stringify(value.value);
    case 'array':
      return `[${value.items.map(jsonText).join(',')}]`;
    case 'object':
      return `{${value.entries.map(([name, entry]) => `${JSON.stringify(name)}:${jsonText(entry)}`).join(',')}}`;
    case 'deep': {
      const leaf = jsonText(value.leaf);
      return value.shape === 'array'
        ? '['.repeat(value.depth) + leaf + ']'.repeat(value.depth)
        : '{"a":'.repeat(value.depth) + leaf + '}'.repeat(value.depth);
    }
  }
};
