/**
 * Reads a JSON document of the seed's shape, an object of arrays, incrementally (issue #31,
 * point 7: a seed of a million SIMs is read with memory bounded by one entry, not by the file).
 * The reader scans bytes for the document's outer structure (the top-level object, its keys, the
 * arrays under them) and hands each value below it, an entry of an array or a member that is not
 * an array, to JSON.parse on its own: any valid JSON is read exactly as JSON.parse reads it
 * (strings with escapes, nested arrays, numbers), and any invalid JSON is refused with the line
 * and column of the fault and, inside an entry, the entry's section and index.
 *
 * Decisions: one value (an entry, or a member that is not an array) may hold at most
 * `maxValueBytes` of JSON text (1 MiB; an entry of the seed is a few hundred bytes), so that
 * memory stays bounded by what the document holds, not by one hostile value; a UTF-8 byte order
 * mark at the start is skipped; a document whose outer value is not an object is refused as "the
 * document must be a JSON object" without reading further.
 */

/** Where something is in the text: 1-based line and column (columns count characters). */
export interface TextPosition {
  line: number;
  column: number;
}

/** What the reader finds, in document order. */
export type SectionEvent =
  /** A top-level member whose value is not an array (null, an object, a string ...), parsed. */
  | { type: 'member'; name: string; value: unknown }
  /** A top-level member whose value is an array: its wanted entries follow as `entry` events. */
  | { type: 'section'; name: string }
  /** An entry of a section (index from 0), parsed. */
  | { type: 'entry'; name: string; index: number; value: unknown }
  /** The end of a section's array, with the number of its entries (wanted or not). */
  | { type: 'section-end'; name: string; entries: number };

/** Invalid JSON: the reason in words (never a piece of the text: it may hold a secret) and where. */
export class JsonSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly at: TextPosition,
    /** The entry the fault is in, when it is in one. */
    readonly entry?: { section: string; index: number },
  ) {
    super(`${reason} at line ${at.line}, column ${at.column}${entry ? ` (in ${entry.section}[${entry.index}])` : ''}`);
    this.name = 'JsonSyntaxError';
  }
}

/** A document whose outer value is not an object (the seed's rule, not a syntax error). */
export class NotAnObject extends Error {
  override name = 'NotAnObject';
}

/** Most bytes of JSON text of one value (an entry, or a top-level member that is not an array). */
export const maxValueBytes = 1024 * 1024;

const enum State {
  Start,
  KeyOrEnd,
  Key,
  InKey,
  Colon,
  MemberValue,
  ElementOrEnd,
  Element,
  Capture,
  AfterArray,
  Done,
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const NEWLINE = 0x0a;

const byteOrderMark = [0xef, 0xbb, 0xbf];

const isWhitespace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** A key as a message names it: quoted, and cut after 64 characters (a key comes from outside). */
export const quotedName = (name: string): string => JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}...` : name);

/** A byte as the reason names it: `'x'`, or its code when it is not printable ASCII. */
const shown = (byte: number): string => (byte > 0x20 && byte < 0x7f ? `'${String.fromCharCode(byte)}'` : `byte 0x${byte.toString(16).padStart(2, '0')}`);

/**
 * The incremental reader: `push` each chunk of the file as it comes, then `end`; each returns
 * the events completed so far. `wanted(name)` says whether the values of a top-level member are
 * parsed and handed out; the others are only scanned (a second pass over a file already read
 * once whole, which wants one section).
 */
export class JsonSectionReader {
  private state = State.Start;
  private line = 1;
  private column = 0;
  private offset = 0;
  /** The bytes of the value or key being read, from earlier chunks. */
  private pieces: Buffer[] = [];
  private pieceBytes = 0;
  private valueStart: TextPosition = { line: 1, column: 1 };
  private nesting = 0;
  private inString = false;
  private escaped = false;
  /** What the value being read is: an entry of the current section, or a member. */
  private captureIsEntry = false;
  private keep = false;
  private name = '';
  private index = 0;
  private sawDocument = false;
  private bomBytes = 0;

  constructor(
    private readonly wanted: (name: string) => boolean = () => true,
    private readonly maxBytes: number = maxValueBytes,
  ) {}

  /** The events completed by `chunk`; JsonSyntaxError or NotAnObject at the first fault. */
  push(chunk: Buffer): SectionEvent[] {
    const events: SectionEvent[] = [];
    // Where the key or value being read starts in this chunk (0 when it began in an earlier one).
    let start = 0;
    for (let at = 0; at < chunk.length; at += 1) {
      const byte = chunk[at]!;
      switch (this.state) {
        case State.Start:
          if (this.offset + at < 3 && byte === byteOrderMark[this.offset + at] && this.bomBytes === this.offset + at) {
            this.bomBytes += 1;
            continue; // a UTF-8 byte order mark: not part of the document
          }
          if (this.bomBytes > 0 && this.bomBytes < 3) throw this.fault('the file starts with a broken byte order mark');
          if (isWhitespace(byte)) break;
          this.sawDocument = true;
          if (byte !== OPEN_BRACE) throw new NotAnObject('the document must be a JSON object');
          this.state = State.KeyOrEnd;
          break;
        case State.KeyOrEnd:
        case State.Key:
          if (isWhitespace(byte)) break;
          if (byte === QUOTE) {
            this.beginValue();
            start = at;
            this.inString = true;
            this.escaped = false;
            this.state = State.InKey;
            this.countValueByte();
          } else if (byte === CLOSE_BRACE && this.state === State.KeyOrEnd) {
            this.state = State.Done;
          } else {
            throw this.fault(this.state === State.Key ? `expected a key (a string) after ',', found ${shown(byte)}` : `expected a key (a string) or '}', found ${shown(byte)}`);
          }
          break;
        case State.InKey:
          this.countValueByte();
          if (this.escaped) this.escaped = false;
          else if (byte === BACKSLASH) this.escaped = true;
          else if (byte === QUOTE) {
            this.name = this.parseKey(this.take(chunk, start, at + 1));
            this.state = State.Colon;
          }
          break;
        case State.Colon:
          if (isWhitespace(byte)) break;
          if (byte !== COLON) throw this.fault(`expected ':' after the key ${quotedName(this.name)}, found ${shown(byte)}`);
          this.state = State.MemberValue;
          break;
        case State.MemberValue:
          if (isWhitespace(byte)) break;
          if (byte === OPEN_BRACKET) {
            this.index = 0;
            events.push({ type: 'section', name: this.name });
            this.state = State.ElementOrEnd;
            break;
          }
          if (byte === COMMA || byte === CLOSE_BRACE) throw this.fault(`the value of ${quotedName(this.name)} is missing`);
          this.beginCapture(false);
          start = at;
          at = this.capture(chunk, at, start, events);
          continue;
        case State.ElementOrEnd:
        case State.Element:
          if (isWhitespace(byte)) break;
          if (byte === CLOSE_BRACKET && this.state === State.ElementOrEnd) {
            this.endSection(events);
            break;
          }
          if (byte === COMMA || byte === CLOSE_BRACKET) throw this.fault(`an entry of ${quotedName(this.name)} is missing`, true);
          this.beginCapture(true);
          start = at;
          at = this.capture(chunk, at, start, events);
          continue;
        case State.Capture:
          at = this.capture(chunk, at, start, events);
          continue;
        case State.AfterArray:
          if (isWhitespace(byte)) break;
          if (byte === COMMA) this.state = State.Key;
          else if (byte === CLOSE_BRACE) this.state = State.Done;
          else throw this.fault(`expected ',' or '}' after the array of ${quotedName(this.name)}, found ${shown(byte)}`);
          break;
        case State.Done:
          if (!isWhitespace(byte)) throw this.fault(`unexpected ${shown(byte)} after the end of the document`);
          break;
      }
      this.advance(byte);
    }
    // A key or value that goes on in the next chunk: keep what this chunk holds of it.
    if (this.state === State.InKey || (this.state === State.Capture && this.keep)) this.pieces.push(chunk.subarray(start));
    this.offset += chunk.length;
    return events;
  }

  /** Checks that the document is complete; JsonSyntaxError when it is not. */
  end(): SectionEvent[] {
    if (this.state === State.Done) return [];
    const at = { line: this.line, column: this.column + 1 };
    if (!this.sawDocument) throw new JsonSyntaxError('the file holds no JSON document', at);
    throw new JsonSyntaxError('the file ends before the document does', at, this.state === State.Capture && this.captureIsEntry ? { section: this.name, index: this.index } : undefined);
  }

  /** Line and column bookkeeping for one byte outside a value (columns count characters, not UTF-8 bytes). */
  private advance(byte: number): void {
    if (byte === NEWLINE) {
      this.line += 1;
      this.column = 0;
    } else if ((byte & 0xc0) !== 0x80) {
      this.column += 1;
    }
  }

  private beginValue(): void {
    this.valueStart = { line: this.line, column: this.column + 1 };
    this.pieces = [];
    this.pieceBytes = 0;
  }

  private beginCapture(isEntry: boolean): void {
    this.beginValue();
    this.captureIsEntry = isEntry;
    this.keep = this.wanted(this.name);
    this.nesting = 0;
    this.inString = false;
    this.escaped = false;
    this.state = State.Capture;
  }

  /** Counts one byte of a key or value against the limit, with its line and column. */
  private countValueByte(): void {
    this.pieceBytes += 1;
    if (this.pieceBytes > this.maxBytes) {
      throw new JsonSyntaxError(
        `a value of more than ${this.maxBytes} bytes of JSON (the most one ${this.state === State.InKey ? 'key' : 'entry or member'} may hold)`,
        this.valueStart,
        this.state === State.Capture && this.captureIsEntry ? { section: this.name, index: this.index } : undefined,
      );
    }
  }

  /**
   * Reads the value being captured from `at` on, up to the `,`, `]` or `}` that ends it at its
   * own level (or the end of the chunk); returns the index of the last byte it consumed.
   */
  private capture(chunk: Buffer, from: number, start: number, events: SectionEvent[]): number {
    const closer = this.captureIsEntry ? CLOSE_BRACKET : CLOSE_BRACE;
    // The hot loop of a large file: its state in locals, written back before anything else runs.
    let { nesting, inString, escaped, line, column } = this;
    const limit = from + this.maxBytes - this.pieceBytes;
    for (let at = from; at < chunk.length; at += 1) {
      const byte = chunk[at]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) {
        inString = true;
      } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        nesting += 1;
      } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        if (nesting === 0) {
          this.keepScan(nesting, inString, escaped, line, column);
          if (byte !== closer) throw this.fault(`unexpected ${shown(byte)}`, this.captureIsEntry);
          this.finishCapture(chunk, start, at, events);
          if (this.captureIsEntry) this.endSection(events);
          else this.state = State.Done;
          this.advance(byte);
          return at;
        }
        nesting -= 1;
      } else if (byte === COMMA && nesting === 0) {
        this.keepScan(nesting, inString, escaped, line, column);
        this.finishCapture(chunk, start, at, events);
        this.state = this.captureIsEntry ? State.Element : State.Key;
        this.advance(byte);
        return at;
      }
      if (at >= limit) {
        this.keepScan(nesting, inString, escaped, line, column);
        this.pieceBytes = this.maxBytes + 1;
        this.countValueByte();
      }
      if (byte === NEWLINE) {
        line += 1;
        column = 0;
      } else if ((byte & 0xc0) !== 0x80) {
        column += 1;
      }
    }
    this.keepScan(nesting, inString, escaped, line, column);
    this.pieceBytes += chunk.length - from;
    return chunk.length - 1;
  }

  /** Writes the capture loop's locals back. */
  private keepScan(nesting: number, inString: boolean, escaped: boolean, line: number, column: number): void {
    this.nesting = nesting;
    this.inString = inString;
    this.escaped = escaped;
    this.line = line;
    this.column = column;
  }

  private finishCapture(chunk: Buffer, start: number, end: number, events: SectionEvent[]): void {
    if (this.captureIsEntry) {
      if (this.keep) events.push({ type: 'entry', name: this.name, index: this.index, value: this.parseValue(this.take(chunk, start, end)) });
      this.index += 1;
    } else if (this.keep) {
      events.push({ type: 'member', name: this.name, value: this.parseValue(this.take(chunk, start, end)) });
    }
    this.pieces = [];
  }

  private endSection(events: SectionEvent[]): void {
    events.push({ type: 'section-end', name: this.name, entries: this.index });
    this.state = State.AfterArray;
  }

  /** The text of the value or key from its pieces of earlier chunks and this one's bytes [start, end). */
  private take(chunk: Buffer, start: number, end: number): string {
    if (this.pieces.length === 0) return chunk.toString('utf8', start, end);
    const text = Buffer.concat([...this.pieces, chunk.subarray(start, end)]).toString('utf8');
    this.pieces = [];
    return text;
  }

  private parseKey(text: string): string {
    try {
      return JSON.parse(text) as string;
    } catch {
      throw this.located(text, undefined);
    }
  }

  private parseValue(text: string): unknown {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw this.located(text, this.captureIsEntry ? { section: this.name, index: this.index } : undefined);
    }
  }

  /** The syntax error of a value's text, placed in the file. */
  private located(text: string, entry: { section: string; index: number } | undefined): JsonSyntaxError {
    const fault = findJsonFault(text) ?? { offset: 0, reason: 'not a valid JSON value' };
    return new JsonSyntaxError(fault.reason, positionWithin(text, fault.offset, this.valueStart), entry);
  }

  /** A fault at the current byte (line and column as counted so far). */
  private fault(reason: string, inEntry = false): JsonSyntaxError {
    return new JsonSyntaxError(reason, { line: this.line, column: this.column + 1 }, inEntry ? { section: this.name, index: this.index } : undefined);
  }
}

/** The position of character `offset` of `text`, which starts at `start` in the file. */
const positionWithin = (text: string, offset: number, start: TextPosition): TextPosition => {
  let { line, column } = start;
  for (let index = 0; index < offset && index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === NEWLINE) {
      line += 1;
      column = 1;
    } else if (code < 0xdc00 || code > 0xdfff) {
      column += 1; // the second half of a surrogate pair is the same character
    }
  }
  return { line, column };
};

const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * The first fault of a text that is not one JSON value: its offset and the reason in words,
 * never quoting the text; undefined when the text is valid JSON. (Run only after JSON.parse
 * refused the text: V8's own messages quote it, and do not always say where.)
 */
export const findJsonFault = (text: string): { offset: number; reason: string } | undefined => {
  const stack: ('{' | '[')[] = [];
  type Expect = 'value' | 'value-or-end' | 'key' | 'key-or-end' | 'after';
  let expect: Expect = 'value';
  let index = 0;
  const length = text.length;
  const character = (at: number) => {
    const code = text.codePointAt(at)!;
    return code > 0x20 && code < 0x7f ? `'${String.fromCharCode(code)}'` : `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
  };
  /** Reads the string starting at `index`; a fault, or undefined with `index` past it. */
  const string = (): { offset: number; reason: string } | undefined => {
    index += 1;
    for (;;) {
      if (index >= length) return { offset: index, reason: 'a string is not closed' };
      const code = text.charCodeAt(index);
      if (code === QUOTE) {
        index += 1;
        return undefined;
      }
      if (code < 0x20) return { offset: index, reason: 'a string holds a control character (write it as an escape such as \\n)' };
      if (code === BACKSLASH) {
        const next = text[index + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(index + 2, index + 6))) return { offset: index, reason: 'a \\u escape needs four hexadecimal digits' };
          index += 6;
          continue;
        }
        if (next === undefined || !'"\\/bfnrt'.includes(next)) return { offset: index, reason: 'an unknown escape in a string' };
        index += 2;
        continue;
      }
      index += 1;
    }
  };
  for (;;) {
    while (index < length && isWhitespace(text.charCodeAt(index))) index += 1;
    if (index >= length) {
      if (expect === 'after' && stack.length === 0) return undefined;
      return { offset: index, reason: stack.length > 0 ? `the text ends inside ${stack.at(-1) === '{' ? 'an object' : 'an array'}` : 'a value is missing' };
    }
    const code = text.charCodeAt(index);
    switch (expect) {
      case 'value':
      case 'value-or-end': {
        if (expect === 'value-or-end' && code === CLOSE_BRACKET) {
          stack.pop();
          index += 1;
          expect = 'after';
        } else if (code === OPEN_BRACE) {
          stack.push('{');
          index += 1;
          expect = 'key-or-end';
        } else if (code === OPEN_BRACKET) {
          stack.push('[');
          index += 1;
          expect = 'value-or-end';
        } else if (code === QUOTE) {
          const fault = string();
          if (fault) return fault;
          expect = 'after';
        } else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
          numberPattern.lastIndex = index;
          const match = numberPattern.exec(text);
          if (!match) return { offset: index, reason: 'a malformed number' };
          index += match[0].length;
          const next = text.charCodeAt(index);
          if (next === 0x2e || next === 0x65 || next === 0x45 || (next >= 0x30 && next <= 0x39)) return { offset: index, reason: 'a malformed number' };
          expect = 'after';
        } else {
          const literal = ['true', 'false', 'null'].find((word) => text.startsWith(word, index));
          if (!literal) return { offset: index, reason: `unexpected ${character(index)} where a value should be` };
          index += literal.length;
          expect = 'after';
        }
        break;
      }
      case 'key':
      case 'key-or-end': {
        if (expect === 'key-or-end' && code === CLOSE_BRACE) {
          stack.pop();
          index += 1;
          expect = 'after';
          break;
        }
        if (code !== QUOTE) return { offset: index, reason: `expected a key (a string)${expect === 'key-or-end' ? " or '}'" : ''}, found ${character(index)}` };
        const fault = string();
        if (fault) return fault;
        while (index < length && isWhitespace(text.charCodeAt(index))) index += 1;
        if (text.charCodeAt(index) !== COLON) return { offset: index, reason: index >= length ? 'the text ends inside an object' : `expected ':' after a key, found ${character(index)}` };
        index += 1;
        expect = 'value';
        break;
      }
      case 'after': {
        const top = stack.at(-1);
        if (top === undefined) return { offset: index, reason: `unexpected ${character(index)} after a complete value` };
        if (code === COMMA) {
          index += 1;
          expect = top === '{' ? 'key' : 'value';
        } else if (code === (top === '{' ? CLOSE_BRACE : CLOSE_BRACKET)) {
          stack.pop();
          index += 1;
        } else {
          return { offset: index, reason: `expected ',' or '${top === '{' ? '}' : ']'}', found ${character(index)}` };
        }
        break;
      }
    }
  }
};
