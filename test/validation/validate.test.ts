import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/errors/api-error';
import { validateListSimsQuery } from '../../shared/sims/list-query';
import { validateSubmission } from '../../shared/sms/submission';
import { codedAnswers, readRefusal, refusalMessage } from '../../shared/validation/coded-message';
import { validateWith } from '../../shared/validation/validate';

/** The thrown value of `run`, as the status, code and detail it answers. */
const refusal = async (run: () => unknown) => {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code, detail: error.detail };
    throw error;
  }
  throw new Error('expected a refusal');
};

const pair = v.object({
  first: v.pipe(v.string(refusalMessage('bad_first', 'first must be a string.')), v.minLength(2, refusalMessage('short_first', 'first is short.'))),
  second: v.number(refusalMessage('bad_second', 'second must be a number.')),
});

describe('the validation path (shared/validation/)', () => {
  it('answers the first issue in schema order with the code and detail its message carries', async () => {
    expect(await refusal(() => validateWith(pair, { first: 'x', second: 'y' }, codedAnswers))).toEqual({
      status: 400,
      code: 'short_first',
      detail: 'first is short.',
    });
  });

  it('lets a precedence of codes win over schema order', async () => {
    const answers = { ...codedAnswers, precedence: ['bad_second', 'short_first'] };
    expect(await refusal(() => validateWith(pair, { first: 'x', second: 'y' }, answers))).toEqual({
      status: 400,
      code: 'bad_second',
      detail: 'second must be a number.',
    });
  });

  it('returns the output of a valid input', () => {
    expect(validateWith(pair, { first: 'xy', second: 2, third: 3 }, codedAnswers)).toEqual({ first: 'xy', second: 2 });
  });

  it('refuses to read a message that carries no code (a schema written wrong)', () => {
    expect(() => readRefusal('Invalid type: Expected string but received 1')).toThrow(
      'validation message without an error code: Invalid type: Expected string but received 1',
    );
  });
});

describe("Area A's request schemas", () => {
  const now = Date.parse('2026-11-20T10:00:00Z');

  it('A1: applies the defaults and reads updated_after as epoch milliseconds', () => {
    expect(validateListSimsQuery({ updated_after: '2026-11-19T12:00:00+02:00', customer: 'Acme', other: 'x' }, now)).toEqual({
      page: 1,
      page_size: 25,
      customer: 'Acme',
      updated_after: Date.parse('2026-11-19T10:00:00Z'),
    });
  });

  it('A1: judges every format before the 31-day bound', async () => {
    expect(await refusal(() => validateListSimsQuery({ updated_after: '2026-10-01T00:00:00Z', page_size: '0' }, now))).toEqual({
      status: 400,
      code: 'invalid_page_size',
      detail: 'page_size must be a whole number from 1 to 100.',
    });
    expect(await refusal(() => validateListSimsQuery({ updated_after: '2026-10-01T00:00:00Z' }, now))).toEqual({
      status: 400,
      code: 'updated_after_range_exceeded',
      detail: 'updated_after may be at most 31 days in the past.',
    });
  });

  it('A3: resolves the callback host only once every other field passed', async () => {
    const resolved: string[] = [];
    const policy = { allowedHosts: [], resolve: async (host: string) => (resolved.push(host), ['93.184.216.34']) };
    expect(await refusal(() => validateSubmission({ message: '', callback_url: 'https://hooks.example/' }, policy))).toEqual({
      status: 400,
      code: 'message_required',
      detail: 'The message field is required.',
    });
    expect(resolved).toEqual([]);
    expect(await validateSubmission({ message: 'hi', message_id: null, callback_url: 'https://hooks.example/r' }, policy)).toEqual({
      message: 'hi',
      callbackUrl: 'https://hooks.example/r',
    });
    expect(resolved).toEqual(['hooks.example']);
  });
});
