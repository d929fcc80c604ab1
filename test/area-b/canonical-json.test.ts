import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../shared/idempotency/idempotency';

/** The recursive definition canonicalJson had before issue #10: the oracle for the iterative one. */
const recursiveCanonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(recursiveCanonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, entry]) => entry !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, entry]) => `${JSON.stringify(name)}:${recursiveCanonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};

describe('canonicalJson (the Idempotency-Key body hash)', () => {
  it('writes exactly what the recursive definition wrote, for any JSON value (so stored hashes still match)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => canonicalJson(value) === recursiveCanonicalJson(value)),
      { numRuns: 2_000, seed: 10 },
    );
  });

  it('sorts keys at every depth and ignores whitespace and key order', () => {
    expect(canonicalJson(JSON.parse('{ "b": [ {"d": 1, "c": "x\\ud800"} ], "a": null, "é": true }'))).toBe(
      '{"a":null,"b":[{"c":"x\\ud800","d":1}],"é":true}',
    );
  });

  it('handles nesting far deeper than the call stack allows (where the recursive one throws)', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    expect(() => recursiveCanonicalJson(deep)).toThrow(RangeError);
    expect(canonicalJson(deep)).toBe(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
    const objects = JSON.parse(`${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`);
    expect(canonicalJson(objects)).toBe(`${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`);
  });
});
