import { describe, expect, it } from 'vitest';
import { credentialHash, credentialMatches, generateCredential, parseCredential, prefixOf } from '../../shared/auth/credentials';
import { roundTrips, type RecordedCall } from '../../shared/db/call-counter';
import { formatGbp, megabytes, pounds, toHundredths } from '../../shared/vocabulary/amounts';
import { parseIsoDateTime } from '../../shared/time/iso-date-time';
import { isoWithOffset } from '../../shared/sims/sim-object';
import { ApiError } from '../../shared/errors/api-error';
import { quoteInput } from '../../shared/errors/detail-text';

describe('amounts', () => {
  it.each([
    ['5', '£5.00'], ['5.5', '£5.50'], ['0.00', '£0.00'], ['1234567.89', '£1234567.89'], ['0.005', '£0.01'], ['-1.5', '-£1.50'],
  ])('formats the GBP amount %s as %s', (stored, shown) => expect(pounds(stored)).toBe(shown));

  it.each([['12.5', '12.50'], ['0', '0.00'], ['10240', '10240.00'], ['0.1', '0.10']])('formats %s MB as %s', (stored, shown) =>
    expect(megabytes(stored)).toBe(shown),
  );

  it('adds amounts exactly, without binary floating point', () => {
    expect(formatGbp(toHundredths('0.10') + toHundredths('0.20'))).toBe('£0.30');
    expect(formatGbp(toHundredths('19.99') + toHundredths('0.01'))).toBe('£20.00');
  });

  it('refuses a value that is not a decimal amount', () => expect(() => toHundredths('12,50')).toThrow('not a decimal amount'));
});

describe('date-times', () => {
  const at = Date.UTC(2026, 10, 20, 10, 0, 0);
  it.each([
    ['2026-11-20T10:00:00+00:00', at],
    ['2026-11-20T10:00:00Z', at],
    ['2026-11-20T12:00:00+02:00', at],
    ['2026-11-20T05:30:00-04:30', at],
    ['2026-11-20T12:00+0200', at],
    ['2026-11-20T12:00:00+02', at],
    ['2026-11-20T12:00:00 02:00', at], // "+" decoded to a space in a query string
    ['2026-11-20T10:00:00', at], // no offset: UTC
    ['2026-11-20 10:00:00Z', at],
    ['2026-11-20T10:00:00.250Z', at + 250],
    ['2026-11-20T10:00:00.123456789Z', at + 123],
  ])('reads %s', (text, expected) => expect(parseIsoDateTime(text)).toBe(expected));

  it.each(['2026-11-20', '2026-02-29T10:00:00Z', '2026-11-20T24:00:00Z', '2026-11-20T10:60:00Z', '2026-13-01T00:00:00Z', 'now', '', '2026-11-20T10:00:00+25:00'])(
    'refuses %j',
    (text) => expect(parseIsoDateTime(text)).toBeUndefined(),
  );

  it('writes times in UTC with +00:00, milliseconds only when there are any', () => {
    expect(isoWithOffset(at)).toBe('2026-11-20T10:00:00+00:00');
    expect(isoWithOffset(at + 5)).toBe('2026-11-20T10:00:00.005+00:00');
  });
});

describe('credentials', () => {
  it('parses the two shapes and nothing else', () => {
    expect(parseCredential('bearer', 'bearer_abc123_s3cr_et!')).toEqual({ value: 'bearer_abc123_s3cr_et!', prefix: 'abc123' });
    expect(parseCredential('devkey', 'devkey_K1_x')).toEqual({ value: 'devkey_K1_x', prefix: 'K1' });
    for (const value of ['bearer_abc', 'bearer__x', 'devkey_abc_x', 'bearer_ab-c_x', 'bearer_abc_x y', ' bearer_abc_x']) {
      expect(parseCredential('bearer', value)).toBeUndefined();
    }
  });

  it('compares against the stored SHA-256 of the whole string', () => {
    const token = 'bearer_abc_secret';
    const stored = credentialHash(token);
    expect(stored).toBe('e28fbcb0913137f864817d4e6909561a9c094d0c71bdc5d156f1c954223d7333'); // sha256sum of the string
    expect(credentialMatches(token, stored)).toBe(true);
    expect(credentialMatches('bearer_abc_secreT', stored)).toBe(false);
    expect(credentialMatches(token, stored.slice(2))).toBe(false);
    expect(credentialMatches(token, undefined)).toBe(false);
  });

  it('generates random credentials of the right shape', () => {
    const first = generateCredential('bearer');
    const second = generateCredential('bearer');
    expect(first.value).toMatch(/^bearer_[0-9a-f]{12}_[0-9a-f]{64}$/);
    expect(parseCredential('bearer', first.value)?.prefix).toBe(first.prefix);
    expect(second.value).not.toBe(first.value);
    expect(prefixOf('devkey', generateCredential('devkey').value)).toMatch(/^[0-9a-f]{12}$/);
    expect(prefixOf('devkey', 'abc123')).toBe('abc123');
    expect(prefixOf('devkey', 'bearer_abc_x')).toBeUndefined();
  });
});

describe('round trips', () => {
  const call = (startedAt: number, endedAt: number): RecordedCall => ({ command: 'X', input: {}, startedAt, endedAt });
  it('counts calls in flight together as one round', () => {
    expect(roundTrips([])).toBe(0);
    expect(roundTrips([call(0, 5), call(6, 9), call(6.1, 12), call(13, 14)])).toBe(3);
    expect(roundTrips([call(0, 10), call(0.2, 3), call(4, 8)])).toBe(2);
  });
});

describe('error details (issue #22)', () => {
  it('quotes at most 64 characters of a string, never a pair split, and arrays and objects by their kind', () => {
    expect(quoteInput('line.deleted')).toBe('"line.deleted"');
    expect(quoteInput('x'.repeat(65))).toBe(`"${'x'.repeat(64)}"… (65 characters)`);
    expect(quoteInput('😀'.repeat(70))).toBe(`"${'😀'.repeat(64)}"… (140 characters)`);
    expect([quoteInput(7), quoteInput(null), quoteInput(true), quoteInput([[1]]), quoteInput({ a: 1 })]).toEqual(['7', 'null', 'true', 'an array', 'an object']);
  });

  it('cuts an ApiError detail longer than 512 characters to 512, ending in an ellipsis', () => {
    const error = new ApiError(400, 'invalid_request', 'y'.repeat(600));
    expect([error.detail.length, error.detail.endsWith('y…'), error.message === error.detail]).toEqual([512, true, true]);
    expect(new ApiError(400, 'invalid_request', `${'y'.repeat(510)}😀z`).detail).toBe(`${'y'.repeat(510)}…`);
    expect(new ApiError(400, 'invalid_request', 'short').detail).toBe('short');
  });
});
