import { describe, expect, it } from 'vitest';
import { callgrindTotal, inclusiveCost } from '../../bench/lib/callgrind-file';
import { isHashSeedSearch } from '../../bench/lib/instructions';

/** A callgrind output file in the shape Valgrind 3.19 writes (compressed names, relative positions, calls). */
const profile = [
  '# callgrind format',
  'version: 1',
  'positions: line',
  'events: Ir',
  'summary: 1000',
  '',
  'ob=(1) /usr/bin/node',
  'fl=(1) ???',
  'fn=(1) main',
  '0 10',
  'cfn=(2) v8::internal::HashSeed::InitializeRoots(v8::internal::Isolate*)',
  'calls=1 0 ',
  '0 120',
  '+2 5',
  'cfn=(3) helper',
  'calls=2 0 ',
  '0 40',
  '',
  'fn=(2)',
  '0 70',
  'cfn=(3)',
  'calls=3 0 ',
  '0 50',
  '',
  'fl=(2) other.c',
  'fn=(2)',
  '* 3',
  '',
  'fn=(3)',
  '0 90',
  '',
].join('\n');

describe('reading a callgrind output file', () => {
  it('reads the total of the summary line', () => {
    expect(callgrindTotal(profile)).toBe(1000);
    expect(callgrindTotal('# callgrind format\ntotals: 42\n')).toBe(42);
    expect(callgrindTotal('# callgrind format\n')).toBeUndefined();
  });

  it('sums a function own costs and the inclusive costs of its calls, over all its blocks, names given by id', () => {
    // HashSeed: own 70 + 3, its call of helper 50.
    expect(inclusiveCost(profile, isHashSeedSearch)).toBe(123);
    // main: own 10 + 5, its calls 120 + 40.
    expect(inclusiveCost(profile, (name) => name === 'main')).toBe(175);
    expect(inclusiveCost(profile, (name) => name === 'absent')).toBe(0);
  });
});
