/**
 * A structural skim of one JSON object held in a Buffer: the byte range of each
 * top-level value, without building strings or objects. Transcripts are mostly big
 * strings (tool output, file contents, signatures) the scanners never need, so finding
 * `type` and `timestamp` this way and JSON.parse-ing only the values that matter is
 * several times faster than parsing every line. Strings are skipped with the native
 * Buffer.indexOf; nothing outside the object's structure is validated, so callers
 * JSON.parse the values they use (and report a line whose value does not parse).
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

function isWs(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Top-level fields of one object: key → [start, end) of the raw value bytes. */
export class Fields {
  buf: Buffer = Buffer.alloc(0);
  /** The object's own byte range in `buf`. */
  start = 0;
  end = 0;
  private keys: string[] = [];
  private starts: number[] = [];
  private ends: number[] = [];

  get size(): number {
    return this.keys.length;
  }

  reset(buf: Buffer, start = 0, end = buf.length): void {
    this.buf = buf;
    this.start = start;
    this.end = end;
    this.keys.length = 0;
    this.starts.length = 0;
    this.ends.length = 0;
  }

  add(key: string, start: number, end: number): void {
    // Duplicate keys: the last one wins, as in JSON.parse.
    const i = this.keys.indexOf(key);
    if (i >= 0) {
      this.starts[i] = start;
      this.ends[i] = end;
      return;
    }
    this.keys.push(key);
    this.starts.push(start);
    this.ends.push(end);
  }

  has(key: string): boolean {
    return this.keys.indexOf(key) >= 0;
  }

  /** Raw value range, or undefined. */
  range(key: string): [number, number] | undefined {
    const i = this.keys.indexOf(key);
    return i < 0 ? undefined : [this.starts[i]!, this.ends[i]!];
  }

  /** The value when it is a JSON string; undefined for anything else (null, numbers…). */
  str(key: string): string | undefined {
    const i = this.keys.indexOf(key);
    if (i < 0) return undefined;
    return decodeString(this.buf, this.starts[i]!, this.ends[i]!);
  }

  /** True only for a literal `true`. */
  bool(key: string): boolean {
    const i = this.keys.indexOf(key);
    if (i < 0) return false;
    const s = this.starts[i]!;
    return this.ends[i]! - s === 4 && this.buf[s] === 0x74; // "true"
  }

  /** JSON.parse of the value (throws SyntaxError on bad JSON). */
  parse(key: string): unknown {
    const i = this.keys.indexOf(key);
    if (i < 0) return undefined;
    return JSON.parse(this.buf.toString('utf8', this.starts[i], this.ends[i]));
  }

  /** JSON.parse of the whole object. */
  parseAll(): unknown {
    return JSON.parse(this.buf.toString('utf8', this.start, this.end));
  }

  /** Whether the raw bytes of the value contain `needle` (e.g. a quoted key). */
  valueIncludes(key: string, needle: Buffer): boolean {
    const r = this.range(key);
    return r !== undefined && this.buf.subarray(r[0], r[1]).indexOf(needle) >= 0;
  }
}

/** Decodes a JSON string value; undefined when the range is not a string. */
export function decodeString(buf: Buffer, start: number, end: number): string | undefined {
  if (buf[start] !== QUOTE || end - start < 2) return undefined;
  const inner = buf.subarray(start + 1, end - 1);
  if (inner.indexOf(BACKSLASH) < 0) return inner.toString('utf8');
  try {
    const value: unknown = JSON.parse(buf.toString('utf8', start, end));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Index just past the closing quote of the string opening at `i`, or -1. */
export function stringEnd(buf: Buffer, i: number, end: number): number {
  let from = i + 1;
  for (;;) {
    const q = buf.indexOf(QUOTE, from);
    if (q < 0 || q >= end) return -1;
    let k = q - 1;
    while (buf[k] === BACKSLASH) k--;
    // An even number of backslashes before the quote: it closes the string.
    if ((q - 1 - k) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Index just past the object or array opening at `i`, or -1. */
function nestedEnd(buf: Buffer, i: number, end: number): number {
  let depth = 0;
  let j = i;
  while (j < end) {
    const c = buf[j];
    if (c === QUOTE) {
      j = stringEnd(buf, j, end);
      if (j < 0) return -1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return j + 1;
    }
    j++;
  }
  return -1;
}

function valueEnd(buf: Buffer, i: number, end: number): number {
  const c = buf[i];
  if (c === QUOTE) return stringEnd(buf, i, end);
  if (c === OPEN_BRACE || c === OPEN_BRACKET) return nestedEnd(buf, i, end);
  let j = i;
  while (j < end) {
    const d = buf[j];
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isWs(d)) break;
    j++;
  }
  return j > i ? j : -1;
}

function skipWs(buf: Buffer, i: number, end: number): number {
  while (i < end && isWs(buf[i])) i++;
  return i;
}

/**
 * Fills `out` with the top-level fields of the object spanning [start, end) (surrounding
 * whitespace allowed). Returns false when the bytes are not exactly one object.
 */
export function skimObject(buf: Buffer, start: number, end: number, out: Fields): boolean {
  out.reset(buf, start, end);
  let i = skipWs(buf, start, end);
  if (buf[i] !== OPEN_BRACE) return false;
  i = skipWs(buf, i + 1, end);
  if (buf[i] === CLOSE_BRACE) return skipWs(buf, i + 1, end) === end;
  for (;;) {
    if (buf[i] !== QUOTE) return false;
    const keyEnd = stringEnd(buf, i, end);
    if (keyEnd < 0) return false;
    const key =
      buf.subarray(i + 1, keyEnd - 1).indexOf(BACKSLASH) < 0
        ? buf.toString('latin1', i + 1, keyEnd - 1)
        : (decodeString(buf, i, keyEnd) ?? '');
    i = skipWs(buf, keyEnd, end);
    if (buf[i] !== COLON) return false;
    i = skipWs(buf, i + 1, end);
    const ve = valueEnd(buf, i, end);
    if (ve < 0) return false;
    out.add(key, i, ve);
    i = skipWs(buf, ve, end);
    if (buf[i] === COMMA) {
      i = skipWs(buf, i + 1, end);
      continue;
    }
    if (buf[i] === CLOSE_BRACE) return skipWs(buf, i + 1, end) === end;
    return false;
  }
}

/**
 * Brace depth change of one physical line outside strings, continuing `state` (for
 * pretty-printed entries spread over many lines). Returns the new depth.
 */
export function depthAfter(
  buf: Buffer,
  start: number,
  end: number,
  state: { depth: number; inString: boolean },
): number {
  for (let j = start; j < end; j++) {
    const c = buf[j];
    if (state.inString) {
      if (c === BACKSLASH) j++;
      else if (c === QUOTE) state.inString = false;
      continue;
    }
    if (c === QUOTE) state.inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) state.depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) state.depth--;
  }
  return state.depth;
}

/**
 * Occurrences of a quoted key followed by a string value, e.g. `"tool_use_id":"`, inside
 * [start, end): yields each value. A match preceded by a backslash is text inside a
 * string, not a key, and is skipped.
 */
export function stringValuesOf(buf: Buffer, start: number, end: number, needle: Buffer): string[] {
  const out: string[] = [];
  const view = buf.subarray(start, end);
  let from = 0;
  for (;;) {
    const at = view.indexOf(needle, from);
    if (at < 0) return out;
    from = at + needle.length;
    if (at > 0 && view[at - 1] === BACKSLASH) continue;
    const close = stringEnd(view, from - 1, view.length);
    if (close < 0) return out;
    const value = decodeString(view, from - 1, close);
    if (value !== undefined) out.push(value);
  }
}

/** Whether `needle` occurs in [start, end) not preceded by a backslash (a real key). */
export function hasKeyPattern(buf: Buffer, start: number, end: number, needle: Buffer): boolean {
  const view = buf.subarray(start, end);
  let from = 0;
  for (;;) {
    const at = view.indexOf(needle, from);
    if (at < 0) return false;
    if (at === 0 || view[at - 1] !== BACKSLASH) return true;
    from = at + 1;
  }
}
