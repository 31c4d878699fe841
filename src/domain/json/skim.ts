/**
 * A structural skim of one JSON object held in a Buffer: the byte range of each
 * top-level value, without building strings or objects. Transcripts are mostly big
 * strings (tool output, file contents, signatures) the scanners never need, so finding
 * `type` and `timestamp` this way and decoding only the values that matter is several
 * times faster than JSON.parse of every line. Everything here is plain loops over bytes:
 * per-field native calls (subarray, toString, indexOf) cost more than they save on the
 * short keys and values that make up most fields. Nothing outside the object's structure
 * is validated; callers JSON.parse the values they use and report what does not parse.
 * Objects inside the buffer last loaded into the WebAssembly kernel (skimKernel.ts) are
 * skimmed by it instead, with SIMD loops inside strings, where most bytes are.
 */
import {
  ELEMENT_FIELD_RESULTS,
  ELEMENT_RESULTS,
  ELEMENT_SPANS,
  KERNEL_OVERFLOW,
  NESTED_RESULTS,
  PLAIN_RESULTS,
  kernel,
  type SkimKernel,
} from './skimKernel.ts';
import { jsonNumber, literalEnd } from './jsonScalars.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const LOWER_U = 0x75;
const LOWER_D = 0x64;

/**
 * Set by the skim when a string holds a `\uD…` escape (a possible lone surrogate), so
 * only those lines are checked further. Reset by the caller before each skim.
 */
export const escapes = { surrogate: false };

function isWs(c: number | undefined): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/** Buffer's own slice decoders, without the encoding dispatch of toString(). */
interface Slices {
  latin1Slice?(start: number, end: number): string;
  utf8Slice?(start: number, end: number): string;
}
const SLICES = Buffer.prototype as unknown as Slices;
const fastSlices =
  typeof SLICES.latin1Slice === 'function' && typeof SLICES.utf8Slice === 'function';

/** UTF-8 text of [start, end); ASCII takes the cheaper latin1 decoder. */
export function text(buf: Buffer, start: number, end: number): string {
  if (!fastSlices) return buf.toString('utf8', start, end);
  const b = buf as unknown as Required<Slices>;
  if (end - start <= 64) {
    for (let j = start; j < end; j++) if (buf[j]! >= 0x80) return b.utf8Slice(start, end);
    return b.latin1Slice(start, end);
  }
  return b.utf8Slice(start, end);
}

const NO_FIELDS = new Int32Array(0);
/** The buffer of a Fields not read yet: one shared, as Buffer.alloc costs a microsecond. */
export const NO_BYTES = Buffer.alloc(0);

/** Top-level fields of one object: key → [start, end) of the raw value bytes. */
export class Fields {
  buf: Buffer = NO_BYTES;
  /** The object's own byte range in `buf`. */
  start = 0;
  end = 0;
  size = 0;
  /** Set when a skim of this object completed (see Nested). */
  ok = false;
  /**
   * Per field: key start, key end (inside the quotes), value start, value end, from
   * `base`: in this object's own array (the JS walk), or in the kernel's results (a
   * view, valid until the kernel's next skim into the same area: see kernelSkim).
   */
  private at: Int32Array;
  private base = 0;
  /**
   * Made on the first JS walk: with the kernel, fields stay in its results. A scanner
   * holds several of these and a cold scan makes a few per file, and each array of this
   * size has its own memory outside V8's heap, which costs more to make than it looks.
   */
  private own = NO_FIELDS;

  constructor() {
    this.at = this.own;
  }

  reset(buf: Buffer, start = 0, end = buf.length): void {
    this.buf = buf;
    this.start = start;
    this.end = end;
    this.size = 0;
    this.ok = false;
    this.at = this.own;
    this.base = 0;
  }

  /** The `count` fields in the kernel's results from `from` (i32 units), not copied. */
  fromKernel(results: Int32Array, from: number, count: number): void {
    this.at = results;
    this.base = from;
    this.size = count;
  }

  /** Every field as key start, key end, value start, value end (a copy; for tests). */
  quads(): number[] {
    return [...this.at.subarray(this.base, this.base + this.size * 4)];
  }

  /** End of the value that starts at `start` (a field's), or -1. */
  valueEndAt(start: number): number {
    const at = this.at;
    for (let p = this.base, last = p + this.size * 4; p < last; p += 4) {
      if (at[p + 2] === start) return at[p + 3]!;
    }
    return -1;
  }

  /** Where the raw value of `key` starts, or -1 (range() without the array; end: valueEndAt). */
  valueStart(key: string): number {
    const p = this.index(key);
    return p < 0 ? -1 : this.at[p + 2]!;
  }

  /** Called by skimObject (the JS walk, after reset: into this object's own array). */
  add(keyStart: number, keyEnd: number, start: number, end: number): void {
    const i = this.size++ * 4;
    if (i + 4 > this.own.length) {
      const grown = new Int32Array(Math.max(64, this.own.length * 2));
      grown.set(this.own);
      this.own = grown;
      this.at = grown;
    }
    const at = this.own;
    at[i] = keyStart;
    at[i + 1] = keyEnd;
    at[i + 2] = start;
    at[i + 3] = end;
  }

  /**
   * Where the field of `key` starts in `at` (compared byte by byte with the raw key), or
   * -1. Searched from the end: of duplicate keys the last one wins, as in JSON.parse.
   */
  private index(key: string): number {
    const at = this.at;
    const n = key.length;
    for (let p = this.base + (this.size - 1) * 4; p >= this.base; p -= 4) {
      // Lengths first, here: most keys differ in length, and a call per key costs more.
      const ks = at[p]!;
      if (at[p + 1]! - ks === n && keyIs(this.buf, ks, ks + n, key)) return p;
    }
    return -1;
  }

  has(key: string): boolean {
    return this.index(key) >= 0;
  }

  /** Raw value range, or undefined. */
  range(key: string): [number, number] | undefined {
    const p = this.index(key);
    return p < 0 ? undefined : [this.at[p + 2]!, this.at[p + 3]!];
  }

  /** The value when it is a JSON string; undefined for anything else (null, numbers…). */
  str(key: string): string | undefined {
    const p = this.index(key);
    if (p < 0) return undefined;
    return decodeString(this.buf, this.at[p + 2]!, this.at[p + 3]!);
  }

  /**
   * Like str() for fields with few distinct values (type, model, stop reason): a value
   * whose bytes `memo` has seen is returned without decoding it again.
   */
  strMemo(key: string, memo: StringMemo): string | undefined {
    const p = this.index(key);
    if (p < 0) return undefined;
    return memo.decode(this.buf, this.at[p + 2]!, this.at[p + 3]!);
  }

  /**
   * Epoch ms of a timestamp written exactly as `"YYYY-MM-DDTHH:MM:SS.sssZ"` (what
   * toISOString() gives back, so the text need not be kept), read from the bytes; NaN
   * when the key is absent or the value has any other form (then use str and Date.parse).
   */
  isoMs(key: string): number {
    const p = this.index(key);
    if (p < 0) return NaN;
    const s = this.at[p + 2]!;
    if (this.at[p + 3]! - s !== 26) return NaN;
    const b = this.buf;
    if (
      b[s] !== QUOTE ||
      b[s + 5] !== 0x2d ||
      b[s + 8] !== 0x2d ||
      b[s + 11] !== 0x54 ||
      b[s + 14] !== COLON ||
      b[s + 17] !== COLON ||
      b[s + 20] !== 0x2e ||
      b[s + 24] !== 0x5a ||
      b[s + 25] !== QUOTE
    ) {
      return NaN;
    }
    // Each part from its digits; any non-digit makes it NaN (checked below).
    const minute = digits(b, s + 15, 2);
    const second = digits(b, s + 18, 2);
    const milli = digits(b, s + 21, 3);
    if (!(minute <= 59 && second <= 59 && milli >= 0)) return NaN;
    const inHour = minute * 60_000 + second * 1000 + milli;
    // Most lines of a file are written within the hour of the line before.
    if (sameBytes(lastHour.bytes, b, s + 1, 13)) return lastHour.ms + inHour;
    const year = digits(b, s + 1, 4);
    const month = digits(b, s + 6, 2);
    const day = digits(b, s + 9, 2);
    const hour = digits(b, s + 12, 2);
    // Out-of-range parts (month 13, hour 24…) would roll over in Date.UTC: not canonical.
    if (
      !(year >= 1000) ||
      !(month >= 1 && month <= 12) ||
      !(day >= 1 && day <= daysInMonth(year, month)) ||
      !(hour <= 23)
    ) {
      return NaN;
    }
    lastHour.ms = Date.UTC(year, month - 1, day, hour);
    lastHour.bytes.set(b.subarray(s + 1, s + 14));
    return lastHour.ms + inHour;
  }

  /** True only for a literal `true`. */
  bool(key: string): boolean {
    const p = this.index(key);
    if (p < 0) return false;
    const s = this.at[p + 2]!;
    return this.at[p + 3]! - s === 4 && this.buf[s] === 0x74; // "true"
  }

  /**
   * Whether the raw value of `key` differs from the one `memo` holds in `slot` (then
   * remembers it). False when the key is absent. Saves decoding fields every line repeats.
   */
  changed(key: string, memo: RawMemo, slot: number): boolean {
    const p = this.index(key);
    if (p < 0) return false;
    return memo.update(slot, this.buf, this.at[p + 2]!, this.at[p + 3]!);
  }

  /**
   * The value as a number: plain non-negative integers (token counts) are read from the
   * bytes, other numbers as JSON's grammar has them (jsonScalars.ts). Undefined when it is
   * another JSON value (null, a string…); NaN when it is no JSON value (`0100`, `.5`,
   * `nul`): the line is malformed, and the caller reports it.
   */
  num(key: string): number | undefined {
    const p = this.index(key);
    return p < 0 ? undefined : this.numAt(p);
  }

  /**
   * num() of each of `keys` into `out` (same order), in one pass over the fields: for
   * objects read for several numbers (usage). Returns false when one is malformed (NaN).
   */
  numbers(keys: readonly string[], out: (number | undefined)[]): boolean {
    for (let k = 0; k < keys.length; k++) out[k] = undefined;
    let ok = true;
    for (let p = this.base, last = p + this.size * 4; p < last; p += 4) {
      const ks = this.at[p]!;
      const ke = this.at[p + 1]!;
      for (let k = 0; k < keys.length; k++) {
        if (!keyIs(this.buf, ks, ke, keys[k]!)) continue;
        // Duplicate keys: the last one wins, as in JSON.parse.
        const v = this.numAt(p);
        out[k] = v;
        if (Number.isNaN(v)) ok = false;
        break;
      }
    }
    return ok;
  }

  /** num() of the field starting at `p` in `at`. */
  private numAt(p: number): number | undefined {
    const s = this.at[p + 2]!;
    const e = this.at[p + 3]!;
    const first = this.buf[s]!;
    if (first !== 0x2d && (first < 0x30 || first > 0x39)) return noNumber(this.buf, s, e);
    // A leading zero is JSON only alone or before a fraction or an exponent (not `0100`).
    if (first === 0x30 && e - s > 1) return jsonNumber(this.buf, s, e);
    let n = 0;
    for (let j = s; j < e; j++) {
      const d = this.buf[j]! - 0x30;
      if (d < 0 || d > 9) return jsonNumber(this.buf, s, e);
      n = n * 10 + d;
    }
    return n;
  }

  /** JSON.parse of the value (throws SyntaxError on bad JSON). */
  parse(key: string): unknown {
    const p = this.index(key);
    if (p < 0) return undefined;
    return JSON.parse(text(this.buf, this.at[p + 2]!, this.at[p + 3]!));
  }

  /** JSON.parse of the whole object. */
  parseAll(): unknown {
    return JSON.parse(text(this.buf, this.start, this.end));
  }
}

/**
 * A value [s, e) that does not start like a number: undefined when it is another JSON
 * value (the walk checked a string's, object's or array's structure), NaN when it is none.
 */
function noNumber(buf: Buffer, s: number, e: number): undefined | number {
  const first = buf[s];
  if (first === QUOTE || first === OPEN_BRACE || first === OPEN_BRACKET) return undefined;
  const literal = first === 0x74 || first === 0x66 || first === 0x6e;
  return literal && literalEnd(buf, s, e) === e ? undefined : NaN;
}

/**
 * The date and hour (`YYYY-MM-DDTHH`) of the last canonical timestamp isoMs read, and
 * their epoch ms. Empty bytes match no timestamp (they start with a digit).
 */
const lastHour = { bytes: new Uint8Array(13), ms: NaN };

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/** The number written by `n` ASCII digits at `at`; NaN if any is not a digit. */
function digits(buf: Buffer, at: number, n: number): number {
  let v = 0;
  let bad = 0;
  for (let j = at; j < at + n; j++) {
    const d = buf[j]! - 0x30;
    bad |= d >>> 0 > 9 ? 1 : 0; // negative wraps to a large unsigned number
    v = v * 10 + d;
  }
  return bad ? NaN : v;
}

/** Whether the first `n` bytes of `held` equal buf[start, start + n). */
function sameBytes(held: Uint8Array, buf: Uint8Array, start: number, n: number): boolean {
  let j = 0;
  while (j < n && held[j] === buf[start + j]) j++;
  return j === n;
}

/** The raw bytes last seen per slot, in buffers reused from line to line. */
export class RawMemo {
  /**
   * Slots each memo has room for (callers use constant slots below this). Allocated up
   * front: arrays grown slot by slot change shape, and V8 recompiles the hot code using
   * them.
   */
  static readonly SLOTS = 4;
  private readonly bytes = new Array<Buffer | undefined>(RawMemo.SLOTS).fill(undefined);
  /** Bytes held per slot; -1 for none. */
  private readonly lengths = new Int32Array(RawMemo.SLOTS).fill(-1);

  /** Whether [start, end) of `buf` differs from what `slot` holds (then holds it). */
  update(slot: number, buf: Buffer, start: number, end: number): boolean {
    if (this.holds(slot, buf, start, end)) return false;
    const n = end - start;
    let held = this.bytes[slot];
    if (!held || held.length < n) {
      held = Buffer.allocUnsafe(Math.max(n, 64));
      this.bytes[slot] = held;
    }
    buf.copy(held, 0, start, end);
    this.lengths[slot] = n;
    return true;
  }

  /** Empties `slot` (its next update is a change). */
  forget(slot: number): void {
    this.lengths[slot] = -1;
  }

  /** Whether `slot` holds exactly the bytes [start, end) of `buf`. */
  holds(slot: number, buf: Buffer, start: number, end: number): boolean {
    const n = end - start;
    const held = this.bytes[slot];
    if (held === undefined || this.lengths[slot] !== n) return false; // past SLOTS: never held
    // Long values (usage objects, Codex token counts) through the native compare.
    return n > 64 ? held.compare(buf, start, end, 0, n) === 0 : sameBytes(held, buf, start, n);
  }
}

/**
 * Decoded strings by their raw bytes, for fields that repeat a handful of values on
 * every line. Holds a few entries and replaces them in turn; long values are not kept.
 */
export class StringMemo {
  private readonly raws: Buffer[] = [];
  private readonly values: string[] = [];
  private next = 0;
  private readonly size: number;

  constructor(size = 8) {
    this.size = size;
  }

  /** decodeString of [start, end) in `buf`, from the memo when its bytes were seen. */
  decode(buf: Buffer, start: number, end: number): string | undefined {
    const n = end - start;
    for (let k = 0; k < this.raws.length; k++) {
      const raw = this.raws[k]!;
      if (raw.length === n && sameBytes(raw, buf, start, n)) return this.values[k];
    }
    const value = decodeString(buf, start, end);
    if (value === undefined || n > 64) return value;
    this.raws[this.next] = Buffer.from(buf.subarray(start, end));
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.size;
    return value;
  }
}

/** Decodes a JSON string value; undefined when the range is not a string. */
export function decodeString(buf: Buffer, start: number, end: number): string | undefined {
  if (buf[start] !== QUOTE || end - start < 2) return undefined;
  // One pass for escapes and non-ASCII bytes: plain ASCII takes the cheaper decoder.
  let escaped = false;
  let ascii = true;
  for (let j = start + 1; j < end - 1; j++) {
    const c = buf[j]!;
    if (c === BACKSLASH) {
      escaped = true;
      break;
    }
    if (c >= 0x80) ascii = false;
  }
  if (!escaped) {
    if (!fastSlices) return buf.toString('utf8', start + 1, end - 1);
    const b = buf as unknown as Required<Slices>;
    return ascii ? b.latin1Slice(start + 1, end - 1) : b.utf8Slice(start + 1, end - 1);
  }
  try {
    const value: unknown = JSON.parse(text(buf, start, end));
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Index just past the closing quote of the string opening at `i`, or -1. A plain loop:
 * strings in transcripts are mostly short, where a native indexOf call costs more than
 * it saves.
 */
export function stringEnd(buf: Uint8Array, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = buf[j];
    if (c === BACKSLASH) {
      if (buf[j + 1] === LOWER_U && (buf[j + 2]! | 0x20) === LOWER_D) escapes.surrogate = true;
      j++;
    } else if (c === QUOTE) return j + 1;
  }
  return -1;
}

/** Index just past the object or array opening at `i`, or -1. */
function nestedEnd(buf: Uint8Array, i: number, end: number): number {
  let depth = 0;
  for (let j = i; j < end; j++) {
    const c = buf[j];
    if (c === QUOTE) {
      for (j++; j < end; j++) {
        const d = buf[j];
        if (d === BACKSLASH) {
          if (buf[j + 1] === LOWER_U && (buf[j + 2]! | 0x20) === LOWER_D) escapes.surrogate = true;
          j++;
        } else if (d === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth === 0) return j + 1;
    }
  }
  return -1;
}

function valueEnd(buf: Uint8Array, i: number, end: number): number {
  const c = buf[i];
  if (kernel !== undefined && buf === kernel.buf) {
    if (c === QUOTE) return kernel.stringEnd(i, end);
    if (c === OPEN_BRACE || c === OPEN_BRACKET) return kernel.nestedEnd(i, end);
  }
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

function skipWs(buf: Uint8Array, i: number, end: number): number {
  while (i < end && isWs(buf[i])) i++;
  return i;
}

/** A field whose object value is skimmed into `out` in the same pass (no second walk). */
export interface Nested {
  key: string;
  out: Fields;
  nested?: Nested;
  /**
   * An array field of `out` whose element ranges are collected (start, end pairs) into
   * `elements`, written in place: the first `elementCount` pairs are this line's, the
   * rest stale. (Emptying the array instead made V8 drop its storage and allocate it
   * again for every line.)
   */
  elementsOf?: string;
  elements?: number[];
  elementCount?: number;
  /**
   * With `elements`: the fields of each element, skimmed in the same walk (`ok` false for
   * an element that is not an object). Grown as needed; entries past the element count
   * are stale.
   */
  elementFields?: Fields[];
  /** Counts of an object field of `out`, read in the same walk by the kernel only. */
  counts?: NestedCounts;
  /** A key looked for in an object field of the line, by the kernel only. */
  keyCheck?: KeyCheck;
}

/**
 * Whether the line's object field `field` has the top-level key `key`, as the kernel
 * saw it in the line's walk: `answer` false when it has not (or the field is absent or
 * no object), true when it has, undefined when not known (the JS walk, malformed bytes):
 * then the caller skims the field itself.
 */
export interface KeyCheck {
  field: string;
  key: string;
  answer: boolean | undefined;
}

/**
 * Number fields of an object field of a Nested's `out` (`usage`, `info`), and of one
 * object inside that (`cache_creation`, `total_token_usage`), read by the kernel during
 * the line's walk. `read` is true only when every one of them was read there: absent or
 * not a number counts 0, plain digits their value, as Fields.numbers and count() give
 * them. Otherwise (no such field, a form the kernel leaves to JS, the JS walk) the
 * caller reads them itself.
 */
export interface NestedCounts {
  /** `[object, number × 4, inner object, inner number × 4]`; '' for none. */
  names: readonly string[];
  read: boolean;
  /** With `read`: whether the inner object was there (an object) and read. */
  inner: boolean;
  /** The four numbers, then the inner object's four. */
  values: number[];
}

/**
 * Fills `out` with the top-level fields of the object spanning [start, end) (surrounding
 * whitespace allowed). Returns false when the bytes are not exactly one object. With
 * `nested`, that field's object value is skimmed into `nested.out` (whose `ok` says
 * whether it was there and well formed).
 */
export function skimObject(
  buf: Buffer,
  start: number,
  end: number,
  out: Fields,
  nested?: Nested,
): boolean {
  resetNested(buf, nested);
  if (kernel !== undefined && buf === kernel.buf) {
    const e = kernelSkim(kernel, buf, start, end, out, nested);
    if (kernel.takeSurrogate()) escapes.surrogate = true;
    if (e !== KERNEL_OVERFLOW) return e >= 0 && skipWs(buf, e, end) === end;
    resetNested(buf, nested); // the JS walk starts over
  }
  const e = skimAt(buf, start, end, out, nested);
  if (kernel?.takeSurrogate()) escapes.surrogate = true;
  return e >= 0 && skipWs(buf, e, end) === end;
}

/** Nested objects not seen (yet): `ok` false, no elements. */
function resetNested(buf: Buffer, nested: Nested | undefined): void {
  for (let n = nested; n; n = n.nested) {
    n.out.reset(buf, 0, 0);
    if (n.elements) n.elementCount = 0;
    if (n.counts) n.counts.read = n.counts.inner = false;
    if (n.keyCheck) n.keyCheck.answer = undefined;
  }
}

/** Counts names that match no key: a descent with no counts to read. */
const NO_COUNTS: readonly string[] = Array.from({ length: 10 }, () => '');

/**
 * skimAt done by the kernel in one walk (a line, its nested object, that one's array
 * elements): the index just past the object, -1 when malformed, or KERNEL_OVERFLOW (then
 * the JS walk is used). Nesting deeper than one level is left to the JS walk too.
 */
function kernelSkim(
  k: SkimKernel,
  buf: Buffer,
  start: number,
  end: number,
  out: Fields,
  nested: Nested | undefined,
): number {
  if (nested?.nested || (nested && !k.descendInto(nested.key, nested.elementsOf ?? ''))) {
    return KERNEL_OVERFLOW;
  }
  const counts = nested?.counts;
  const countsWanted = nested !== undefined && k.countsOf(counts?.names ?? NO_COUNTS);
  const check = nested?.keyCheck;
  const checkWanted = nested !== undefined && k.keyCheckOf(check?.field ?? '', check?.key ?? '');
  const e = k.skim(start, end, nested ? 1 : 0);
  if (e < 0) return e;
  const state = countsWanted ? k.countsState : 0;
  if (counts && (state === 1 || state === 3)) {
    for (let i = 0; i < counts.values.length; i++) counts.values[i] = k.countValue(i);
    counts.read = true;
    counts.inner = state === 3;
  }
  if (check && checkWanted) {
    const answer = k.keyCheck;
    check.answer = answer === 3 ? undefined : answer === 1;
  }
  out.reset(buf, start, end);
  out.fromKernel(k.results, nested ? 0 : PLAIN_RESULTS, k.count);
  out.start = k.open;
  done(out, e);
  if (nested && k.nestedCount >= 0) {
    const n = nested.out;
    const open = k.nestedOpen;
    n.reset(buf, open, end);
    n.fromKernel(k.results, NESTED_RESULTS, k.nestedCount);
    done(n, out.valueEndAt(open));
    const elements = nested.elements;
    if (elements && k.elementCount >= 0) {
      const pairs = k.elementCount * 2;
      const r = k.results;
      for (let i = 0; i < pairs; i++) elements[i] = r[ELEMENT_RESULTS + i]!;
      nested.elementCount = k.elementCount;
      const fields = nested.elementFields;
      if (fields) {
        for (let e = 0; e < k.elementCount; e++) {
          const f = elementFieldsAt(fields, e);
          const count = r[ELEMENT_SPANS + e * 2 + 1]!;
          f.reset(buf, r[ELEMENT_RESULTS + e * 2]!, r[ELEMENT_RESULTS + e * 2 + 1]!);
          if (count < 0) continue;
          f.fromKernel(r, ELEMENT_FIELD_RESULTS + r[ELEMENT_SPANS + e * 2]! * 4, count);
          f.ok = true;
        }
      }
    }
  }
  return e;
}

/** Index just past the object starting at (whitespace before) `start`; -1 when malformed. */
function skimAt(
  buf: Buffer,
  start: number,
  end: number,
  out: Fields,
  nested: Nested | undefined,
  self?: Nested,
): number {
  out.reset(buf, start, end);
  let i = skipWs(buf, start, end);
  if (buf[i] !== OPEN_BRACE) return -1;
  out.start = i;
  i = skipWs(buf, i + 1, end);
  if (buf[i] === CLOSE_BRACE) return done(out, i + 1);
  for (;;) {
    if (buf[i] !== QUOTE) return -1;
    const keyEnd = stringEnd(buf, i, end);
    if (keyEnd < 0) return -1;
    const keyStart = i + 1;
    i = skipWs(buf, keyEnd, end);
    if (buf[i] !== COLON) return -1;
    i = skipWs(buf, i + 1, end);
    let ve: number;
    if (nested && buf[i] === OPEN_BRACE && keyIs(buf, keyStart, keyEnd - 1, nested.key)) {
      ve = skimAt(buf, i, end, nested.out, nested.nested, nested);
    } else if (
      self?.elements &&
      buf[i] === OPEN_BRACKET &&
      keyIs(buf, keyStart, keyEnd - 1, self.elementsOf!)
    ) {
      ve = elementsEnd(buf, i, end, self);
    } else ve = valueEnd(buf, i, end);
    if (ve < 0) return -1;
    out.add(keyStart, keyEnd - 1, i, ve);
    i = skipWs(buf, ve, end);
    if (buf[i] === COMMA) {
      i = skipWs(buf, i + 1, end);
      continue;
    }
    if (buf[i] === CLOSE_BRACE) return done(out, i + 1);
    return -1;
  }
}

/** Where element objects are skimmed when their fields are not wanted (only checked). */
const scratchFields = new Fields();

/**
 * Index just past the array at `start` (or -1), its elements' ranges collected into
 * `self.elements` and the fields of the objects among them into `self.elementFields`, in
 * one walk that also finds where each object ends, as the kernel does.
 */
function elementsEnd(buf: Buffer, start: number, end: number, self: Nested): number {
  const collected = self.elements!;
  self.elementCount = 0; // a repeated key: the last one wins, as in JSON.parse
  const fieldsOfNext = () =>
    self.elementFields ? elementFieldsAt(self.elementFields, self.elementCount!) : scratchFields;
  return arrayEnd(
    buf,
    start,
    end,
    (s, e) => {
      if (buf[s] !== OPEN_BRACE) fieldsOfNext().reset(buf, s, e);
      const n = self.elementCount!;
      collected[n * 2] = s;
      collected[n * 2 + 1] = e;
      self.elementCount = n + 1;
    },
    (s) => skimAt(buf, s, end, fieldsOfNext(), undefined),
  );
}

/** The Fields for element `i` of a Nested's elementFields, made on first use. */
function elementFieldsAt(fields: Fields[], i: number): Fields {
  let f = fields[i];
  if (!f) {
    f = new Fields();
    fields[i] = f;
  }
  return f;
}

function done(out: Fields, end: number): number {
  out.end = end;
  out.ok = true;
  return end;
}

function keyIs(buf: Buffer, ks: number, ke: number, key: string): boolean {
  if (ke - ks !== key.length) return false;
  for (let j = 0; j < key.length; j++) if (buf[ks + j] !== key.charCodeAt(j)) return false;
  return true;
}

/**
 * Index just past the array at `start`, calling `each` per element; -1 when malformed.
 * `objectEnd` (if given) walks the elements that are objects.
 */
function arrayEnd(
  buf: Buffer,
  start: number,
  end: number,
  each: (start: number, end: number) => void,
  objectEnd?: (start: number) => number,
): number {
  let i = skipWs(buf, start, end);
  if (buf[i] !== OPEN_BRACKET) return -1;
  i = skipWs(buf, i + 1, end);
  if (buf[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    const ve = objectEnd && buf[i] === OPEN_BRACE ? objectEnd(i) : valueEnd(buf, i, end);
    if (ve < 0) return -1;
    each(i, ve);
    i = skipWs(buf, ve, end);
    if (buf[i] === COMMA) {
      i = skipWs(buf, i + 1, end);
      continue;
    }
    return buf[i] === CLOSE_BRACKET ? i + 1 : -1;
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

/**
 * The first `max` or so characters of the JSON string at [start, end) (quotes included),
 * cut between two characters: enough to tell a prompt from harness text without decoding
 * a long one. Undefined when the range is not a string.
 */
export function decodeStringHead(
  buf: Buffer,
  start: number,
  end: number,
  max = 256,
): string | undefined {
  if (end - start <= max + 2) return decodeString(buf, start, end);
  if (buf[start] !== QUOTE) return undefined;
  const stop = start + 1 + max;
  let i = start + 1;
  let escaped = false;
  while (i < stop) {
    if (buf[i] === BACKSLASH) {
      escaped = true;
      i += buf[i + 1] === LOWER_U ? 6 : 2;
    } else i++;
  }
  if (!escaped) return text(buf, start + 1, stop);
  try {
    return JSON.parse(`${text(buf, start, i)}"`) as string;
  } catch {
    return undefined;
  }
}
