import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonSectionReader, JsonSyntaxError, NotAnObject, type SectionEvent } from '../../local/seed/json-sections';

/** Every event of `text` read in chunks of `chunk` bytes. */
const read = (text: string | Buffer, chunk: number, wanted?: (name: string) => boolean, maxBytes?: number): SectionEvent[] => {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  const reader = new JsonSectionReader(wanted, maxBytes);
  const events: SectionEvent[] = [];
  for (let at = 0; at < bytes.length; at += chunk) events.push(...reader.push(bytes.subarray(at, at + chunk)));
  events.push(...reader.end());
  return events;
};

/** The top-level members as JSON.parse reads them, from the events: [name, value] in document order. */
const membersOf = (events: SectionEvent[]): [string, unknown][] => {
  const members: [string, unknown][] = [];
  for (const event of events) {
    if (event.type === 'member') members.push([event.name, event.value]);
    if (event.type === 'section') members.push([event.name, []]);
    if (event.type === 'entry') (members.at(-1)![1] as unknown[]).push(event.value);
  }
  return members;
};

/** The syntax error of `text` read in chunks of `chunk` bytes, as its message. */
const faultOf = (text: string, chunk = 4096, maxBytes?: number): string => {
  try {
    read(text, chunk, undefined, maxBytes);
  } catch (error) {
    if (error instanceof JsonSyntaxError || error instanceof NotAnObject) return error.message;
    throw error;
  }
  throw new Error(`read ${JSON.stringify(text)} without a fault`);
};

const awkward = [
  '\uFEFF{',
  '  "$comment": {"note": "a member that is not an array, with ] and } and , in a string", "nested": [[1, [2]], {"a": {}}]},',
  '  "customers" : [ ] ,',
  '  "sims":[{"id":1,"name":"quote \\" backslash \\\\ slash \\/ controls \\b\\f\\n\\r\\t","u":"\\u00e9\\ud83d\\ude00","raw":"é😀中"},',
  '\t\t{"roles": ["developer", "admin"], "n": [-0, 0.5, -1.25e-7, 1E+3, 12345678901234567890], "f": [true, false, null]} ,\r\n',
  '    "just a string", 42, null, [], {}, [[]]',
  '  ],',
  '  "empty": "", "object": {"sims": [1, 2]}, "number": -3.5e2, "nothing": null',
  '}   ',
].join('\n');

describe('reading a seed-shaped JSON document incrementally', () => {
  it('reads any valid JSON exactly as JSON.parse does, in chunks of any size', () => {
    const expected = Object.entries(JSON.parse(awkward.slice(1)) as Record<string, unknown>);
    for (const chunk of [1, 2, 3, 5, 7, 11, 64, 65536]) expect([chunk, membersOf(read(awkward, chunk))]).toEqual([chunk, expected]);
  });

  it('reads generated documents of arbitrary JSON as JSON.parse does', () => {
    const document = fc.dictionary(fc.string(), fc.oneof(fc.array(fc.jsonValue(), { maxLength: 5 }), fc.jsonValue()), { maxKeys: 6 });
    fc.assert(
      fc.property(document, fc.constantFrom(0, 1, 2, '\t'), fc.integer({ min: 1, max: 40 }), (value, indent, chunk) => {
        const text = JSON.stringify(value, null, indent);
        expect(membersOf(read(text, chunk))).toEqual(Object.entries(JSON.parse(text) as Record<string, unknown>));
      }),
      { numRuns: 300 },
    );
  });

  it('hands out the entries of the wanted sections only, and counts every entry', () => {
    const events = read('{"users": [{"id": "u1"}, {"id": "u2"}], "$c": {"x": 1}, "sims": [{"id": 1}, {"id": 2}, {"id": 3}]}', 5, (name) => name === 'sims');
    expect(events).toEqual([
      { type: 'section', name: 'users' },
      { type: 'section-end', name: 'users', entries: 2 },
      { type: 'section', name: 'sims' },
      { type: 'entry', name: 'sims', index: 0, value: { id: 1 } },
      { type: 'entry', name: 'sims', index: 1, value: { id: 2 } },
      { type: 'entry', name: 'sims', index: 2, value: { id: 3 } },
      { type: 'section-end', name: 'sims', entries: 3 },
    ]);
  });

  it('keeps names as data: __proto__ and constructor are plain keys', () => {
    const events = read('{"__proto__": [{"constructor": 1, "__proto__": {"x": 2}}], "constructor": null}', 3);
    expect(membersOf(events)).toEqual([
      ['__proto__', [JSON.parse('{"constructor": 1, "__proto__": {"x": 2}}')]],
      ['constructor', null],
    ]);
    expect(Object.hasOwn((events[1] as { value: object }).value, '__proto__')).toBe(true);
  });

  it.each([
    ['{"sims": [1,]}', 'an entry of "sims" is missing at line 1, column 13 (in sims[1])'],
    ['{"sims": [,1]}', 'an entry of "sims" is missing at line 1, column 11 (in sims[0])'],
    ['{"sims": [1 2]}', "unexpected '2' after a complete value at line 1, column 13 (in sims[0])"],
    ['{"sims": [\n  {"id": 1},\n  {"id": 2, "x": [1, 2,]}\n]}', "unexpected ']' where a value should be at line 3, column 24 (in sims[1])"],
    ['{"sims": [{"a":\n "x\ty"}]}', 'a string holds a control character (write it as an escape such as \\n) at line 2, column 4 (in sims[0])'],
    ['{"sims": [{"a": "\\q"}]}', 'an unknown escape in a string at line 1, column 18 (in sims[0])'],
    ['{"sims": [{"a": "\\u12g4"}]}', 'a \\u escape needs four hexadecimal digits at line 1, column 18 (in sims[0])'],
    ['{"sims": [{"a": tru}]}', "unexpected 't' where a value should be at line 1, column 17 (in sims[0])"],
    ['{"sims": [{"a": 01}]}', 'a malformed number at line 1, column 18 (in sims[0])'],
    ['{"sims": [{"a": 1.}]}', 'a malformed number at line 1, column 18 (in sims[0])'],
    ['{"sims": [{"a": 1}}]}', "unexpected '}' at line 1, column 19 (in sims[0])"],
    ['{"sims": [{"a": 1]]}', "expected ',' or '}', found ']' at line 1, column 18 (in sims[0])"],
    ['{"sims": [{a: 1}]}', "expected a key (a string) or '}', found 'a' at line 1, column 12 (in sims[0])"],
    ['{"sims": [{"é": "😀", "b" 1}]}', "expected ':' after a key, found '1' at line 1, column 26 (in sims[0])"],
    ['{"sims": ["abc]}', 'the file ends before the document does at line 1, column 17 (in sims[0])'],
    ['{"sims" [1]}', `expected ':' after the key "sims", found '[' at line 1, column 9`],
    ['{"sims": [1]', 'the file ends before the document does at line 1, column 13'],
    ['{"sims": [1]} x', "unexpected 'x' after the end of the document at line 1, column 15"],
    ['{"sims": [1]} {}', "unexpected '{' after the end of the document at line 1, column 15"],
    ['{"sims": [1] "users": []}', `expected ',' or '}' after the array of "sims", found '"' at line 1, column 14`],
    ['{"sims": }', 'the value of "sims" is missing at line 1, column 10'],
    ['{"sims": [], }', "expected a key (a string) after ',', found '}' at line 1, column 14"],
    ['{,}', "expected a key (a string) or '}', found ',' at line 1, column 2"],
    ['{"a\\q": 1}', 'an unknown escape in a string at line 1, column 4'],
    ['{"$c": {"x": }}', "unexpected '}' where a value should be at line 1, column 14"],
    ['{"$c": [1}', "unexpected '}' at line 1, column 10 (in $c[0])"],
    ['', 'the file holds no JSON document at line 1, column 1'],
    ['  \n ', 'the file holds no JSON document at line 2, column 2'],
    ['[{"sims": []}]', 'the document must be a JSON object'],
    ['"sims"', 'the document must be a JSON object'],
  ])('refuses %j, saying where', (text, message) => {
    for (const chunk of [1, 3, 4096]) expect([chunk, faultOf(text, chunk)]).toEqual([chunk, message]);
  });

  it('never quotes the text in a message: a broken token entry names only the place', () => {
    const message = faultOf('{"bearer_tokens": [{"token": "bearer_ab_S3cretValue" "user": "u1"}]}');
    expect(message).toBe("expected ',' or '}', found '\"' at line 1, column 54 (in bearer_tokens[0])");
  });

  it('refuses one value larger than the limit, naming the entry where it starts', () => {
    const big = `{"sims": [{"id": 1},\n {"id": 2, "note": "${'x'.repeat(100)}"}]}`;
    expect(faultOf(big, 7, 64)).toBe('a value of more than 64 bytes of JSON (the most one entry or member may hold) at line 2, column 2 (in sims[1])');
    expect(faultOf(`{"${'k'.repeat(100)}": 1}`, 7, 64)).toBe('a value of more than 64 bytes of JSON (the most one key may hold) at line 1, column 2');
    expect(membersOf(read(big, 7, undefined, 200))).toEqual(Object.entries(JSON.parse(big) as Record<string, unknown>));
  });

  it('counts columns in characters, not bytes, and skips a byte order mark', () => {
    expect(faultOf('\uFEFF{"é😀": [1, x]}', 1)).toBe("unexpected 'x' where a value should be at line 1, column 12 (in é😀[1])");
    expect(membersOf(read('\uFEFF{"a": []}', 1))).toEqual([['a', []]]);
    expect(() => read(Buffer.from([0xef, 0xbb, 0x7b, 0x7d]), 1)).toThrow(new JsonSyntaxError('the file starts with a broken byte order mark', { line: 1, column: 1 }));
  });
});
