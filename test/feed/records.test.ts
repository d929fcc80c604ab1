import { describe, expect, it } from 'vitest';
import { feedMessageDrafts } from '../../shared/feed/messages';
import { feedLines, maxLineBytes, readFeedLine } from '../../shared/feed/records';

/**
 * Reading the operator feed's lines (issue #20, points 1 and 5): each record type in the seed's
 * vocabulary, and every way a line is refused alone with its reason; cutting a file into
 * messages of whole, numbered lines.
 */

const time = '2026-11-25T10:00:00+01:00';
const sourceMs = Date.parse('2026-11-25T09:00:00Z');
const usage = { type: 'usage', source_time: time, iccid: '8944500000000001001', month: '2026-11', data_used_mb: '120.5', data_overage_mb: '0.00', overage_cost: '0' };
const line = (record: unknown) => JSON.stringify(record);

describe('a feed line', () => {
  it('reads each record type, with its source time in epoch milliseconds', () => {
    const sim = { type: 'sim', source_time: time, id: 1001, iccid: '8944500000000001001', msisdn: null, customer: 'acme-north', status: 'active', connection_status: 'active', tariff_name: 'IoT 1GB', base_cost: '5.00', data_bundle: null };
    const simStatus = { type: 'sim_status', source_time: time, iccid: '8944500000000001001', connection_status: 'inactive' };
    const customer = { type: 'customer', source_time: time, id: 'acme-east', name: 'Acme East', parent: 'acme', sms_enabled: false };
    const bundle = { type: 'data_bundle', source_time: time, id: 'b-2', customer: 'acme', allowance_mb: '100', monthly_cost: '9.99', per_sim_access_fee: '0.50' };
    // A `sim` record may carry only the fields it changes (id and iccid always).
    const partial = { type: 'sim', source_time: time, id: 1001, iccid: '8944500000000001001', tariff_name: 'IoT 5GB' };
    expect([sim, simStatus, usage, customer, bundle, partial].map((record) => readFeedLine(line(record), Date.now()))).toEqual([
      { record: { ...sim, sourceMs } },
      { record: { ...simStatus, sourceMs } },
      { record: { ...usage, sourceMs } },
      { record: { ...customer, sourceMs } },
      { record: { ...bundle, sourceMs } },
      { record: { ...partial, sourceMs } },
    ]);
  });

  it('is refused, with its reason, when it is not JSON, not an object, of no or an unknown type, or breaks a field rule', () => {
    const refused = [
      'not json at all',
      '[1, 2]',
      '"usage"',
      line({ source_time: time }),
      line({ type: 'sims' }),
      line({ type: 7 }),
      line({ ...usage, source_time: '2026-11-25T10:00:00' }),
      line({ ...usage, source_time: 'yesterday' }),
      line({ ...usage, month: '2026-13' }),
      line({ ...usage, data_used_mb: '1.005' }),
      line({ ...usage, data_used_mb: 12.5 }),
      line({ ...usage, overage_cost: undefined }),
      line({ ...usage, iccid: '89-44' }),
      line({ ...usage, colour: 'blue' }),
      line({ type: 'sim_status', source_time: time, iccid: '1' }),
      line({ type: 'sim_status', source_time: time, iccid: '1', status: 'lost' }),
      line({ type: 'sim', source_time: time, id: 0, iccid: '1' }),
      line({ type: 'sim', source_time: time, id: 1.5, iccid: '1' }),
      line({ type: 'customer', source_time: time, id: 'a b', name: 'A', parent: null, sms_enabled: true }),
      line({ type: 'customer', source_time: time, id: 'a', name: ' ', parent: null, sms_enabled: true }),
      line({ type: 'data_bundle', source_time: time, id: 'b', customer: 'acme', allowance_mb: '1', monthly_cost: '1' }),
      `{"type":"usage","pad":"${'x'.repeat(maxLineBytes)}"}`,
    ].map((text) => readFeedLine(text, Date.now()));
    expect(refused).toEqual(
      [
        'the line is not JSON',
        'the line is not a JSON object',
        'the line is not a JSON object',
        'type is missing; one of sim, sim_status, usage, customer, data_bundle',
        'type "sims" is unknown; one of sim, sim_status, usage, customer, data_bundle',
        'type 7 is unknown; one of sim, sim_status, usage, customer, data_bundle',
        'source_time must be an ISO-8601 date-time with a UTC offset, such as "2026-11-20T10:00:00+00:00"',
        'source_time must be an ISO-8601 date-time with a UTC offset, such as "2026-11-20T10:00:00+00:00"',
        'month must be a month such as "2026-11"',
        'data_used_mb must be a decimal string such as "12.50" (at most 12 integer digits and two decimal places)',
        'data_used_mb must be a decimal string such as "12.50"',
        'overage_cost is required in a usage record',
        'iccid must be 1 to 20 digits',
        'unknown field "colour" in a usage record',
        'needs status, connection_status or both',
        'status must be one of active, inactive, suspended, cancelled, stock, dispatched, trial',
        'id must be a positive integer',
        'id must be a positive integer',
        'id must be 1 to 64 characters of letters, digits, ".", "_" and "-", starting with a letter or a digit',
        'name must not be empty',
        'per_sim_access_fee is required in a data_bundle record',
        `the line is longer than ${maxLineBytes} bytes`,
      ].map((reason) => ({ reason })),
    );
  });

  it('names a misspelt field as unknown, with the field it most likely meant, before the rule it would break', () => {
    const status = { type: 'sim_status', source_time: time, iccid: '8944500000000001001' };
    expect(
      [
        line({ ...status, statuss: 'active' }),
        line({ ...status, Status: 'active' }),
        line({ ...status, stauts: 'active', connection_status: 'active' }),
        line({ ...usage, overage_cost: undefined, overagecost: '1.00' }),
        line({ ...usage, data_used: '1.00' }),
        line({ ...usage, sauce: '1' }),
        line({ ...usage, [`${'x'.repeat(70)}`]: 1 }),
      ].map((text) => readFeedLine(text, Date.now())),
    ).toEqual(
      [
        'unknown field "statuss" in a sim_status record (did you mean "status"?)',
        'unknown field "Status" in a sim_status record (did you mean "status"?)',
        'unknown field "stauts" in a sim_status record (did you mean "status"?)',
        'unknown field "overagecost" in a usage record (did you mean "overage_cost"?)',
        'unknown field "data_used" in a usage record',
        'unknown field "sauce" in a usage record',
        `unknown field "${'x'.repeat(64)}"… (70 characters) in a usage record`,
      ].map((reason) => ({ reason })),
    );
  });

  it('numbers the lines of a text from 1, skipping blank ones and dropping carriage returns', () => {
    expect(feedLines('a\r\n\n  \nb\nc', 1)).toEqual([
      { line: 1, text: 'a' },
      { line: 4, text: 'b' },
      { line: 5, text: 'c' },
    ]);
    expect(feedLines('x\ny', 41)).toEqual([
      { line: 41, text: 'x' },
      { line: 42, text: 'y' },
    ]);
  });
});

describe('cutting a file into feed messages', () => {
  const numbered = (texts: string[]) => texts.map((text, index) => ({ line: index + 1, text }));

  it('puts whole lines into messages of at most the given size, each numbered by its first line', () => {
    const texts = Array.from({ length: 10 }, (_, index) => `line-${index + 1}-${'x'.repeat(20)}`); // 28 or 29 bytes each
    const oversized: unknown[] = [];
    const drafts = [...feedMessageDrafts(numbered(texts), (entry) => oversized.push(entry), 100)];
    expect(drafts.map((draft) => [draft.firstLine, draft.lines])).toEqual([
      [1, 3],
      [4, 3],
      [7, 3],
      [10, 1],
    ]);
    for (const draft of drafts) expect(Buffer.byteLength(draft.body)).toBeLessThanOrEqual(100);
    // Every line once, in order, and each message's lines numbered from its first line.
    expect(drafts.flatMap((draft) => feedLines(draft.body, draft.firstLine))).toEqual(numbered(texts));
    expect(oversized).toEqual([]);
  });

  it('sends a line longer than a record may be as an empty line (the numbers after it hold), and no message of blank lines only', () => {
    const long = 'y'.repeat(maxLineBytes + 1);
    const oversized: unknown[] = [];
    const drafts = [...feedMessageDrafts(numbered(['a', long, 'b', '', '']), (entry) => oversized.push(entry))];
    expect(oversized).toEqual([{ line: 2, bytes: maxLineBytes + 1, reason: `the line is longer than ${maxLineBytes} bytes` }]);
    expect(drafts).toEqual([{ firstLine: 1, body: 'a\n\nb\n\n', lines: 5, bytes: 6 }]);
    expect([...feedMessageDrafts(numbered(['', ' ']), () => {})]).toEqual([]);
  });

  it('leaves out a line with a character a queue message cannot carry (SQS would refuse its whole message), its number kept', () => {
    const leftOut: unknown[] = [];
    const lines = ['{"a":1}', '{"a":"\u0000"}', '{"a":"\uD800"}', '{"a":"\uFFFF"}', '{"a":"\t\u00e9\uD83D\uDE42"}'];
    const drafts = [...feedMessageDrafts(numbered(lines), (entry) => leftOut.push(entry))];
    expect(leftOut).toEqual([
      { line: 2, bytes: 9, reason: 'the line holds U+0000, which a queue message cannot carry' },
      { line: 3, bytes: 11, reason: 'the line holds U+D800, which a queue message cannot carry' },
      { line: 4, bytes: 11, reason: 'the line holds U+FFFF, which a queue message cannot carry' },
    ]);
    expect(drafts.map((draft) => draft.body)).toEqual([`{"a":1}\n\n\n\n${lines[4]}`]);
  });
});
