/**
 * The part of a transcript scanner that does not depend on the harness: splitting bytes
 * into lines as they arrive (a scanner lives as long as its file is cached, so an append
 * continues where the last read stopped and a truncated last line waits for its end),
 * re-joining pretty-printed multi-line entries, and reporting bad input with line numbers.
 */
import { Fields, depthAfter, escapes, skimObject, type Nested } from '../../../domain/json/skim.ts';
import { kernel } from '../../../domain/json/skimKernel.ts';
import type { BaseScannerState } from '../scannerState.ts';
import type { LocalProblem } from '../types.ts';

const NEWLINE = 0x0a;
const CR = 0x0d;
const OPEN_BRACE = 0x7b;
const BACKSLASH = 0x5c;

/**
 * Lines longer than this are reported (still read: they may carry usage). A pasted image
 * or PDF is one base64 line of a few MB; the API takes requests up to 32 MB, so a line of
 * a real transcript stays below this.
 */
export const LONG_LINE_BYTES = 64 << 20;
/** A multi-line entry longer than this is given up as invalid. */
const PRETTY_MAX_LINES = 20_000;
const PRETTY_MAX_BYTES = 64 << 20;
/**
 * Buffers for lines cut by the end of a read, reused by every scanner of the thread: a
 * fresh Buffer for each cut line, and for each read of a line longer than a read, cost
 * ten times the copy itself (large allocations are fresh pages each time). Sizes are
 * powers of two and the largest spares are kept, so that a long line finds one.
 */
const spareStores: Buffer[] = [];
const SPARE_STORES = 2;
const SPARE_STORE_MAX = 4 << 20;
const STORE_MIN = 64 << 10;

function takeStore(bytes: number): Buffer {
  let best = -1;
  for (let i = 0; i < spareStores.length; i++) {
    const length = spareStores[i]!.length;
    if (length >= bytes && (best < 0 || length < spareStores[best]!.length)) best = i;
  }
  if (best >= 0) return spareStores.splice(best, 1)[0]!;
  let size = STORE_MIN;
  while (size < bytes) size *= 2;
  return Buffer.allocUnsafe(size);
}

function giveStore(store: Buffer): void {
  if (store.length > SPARE_STORE_MAX) return;
  if (spareStores.length < SPARE_STORES) {
    spareStores.push(store);
    return;
  }
  // Full: the new one replaces the smallest spare if it is larger.
  let smallest = 0;
  for (let i = 1; i < spareStores.length; i++) {
    if (spareStores[i]!.length < spareStores[smallest]!.length) smallest = i;
  }
  if (spareStores[smallest]!.length < store.length) spareStores[smallest] = store;
}

/** Problems listed per file; the rest are counted in one last problem. */
const MAX_PROBLEMS = 50;

interface PrettyBlock {
  startLine: number;
  parts: Buffer[];
  bytes: number;
  depth: { depth: number; inString: boolean };
}

/** A second pass over a file's end: feed `scanner` the bytes from `from`, then adopt it. */
export interface StatusReplay {
  from: number;
  scanner: LineScanner;
}

export abstract class LineScanner {
  readonly path: string;
  /** Physical lines completed so far. */
  lines = 0;
  /** Bytes fed so far (the file offset the next read starts at). */
  bytes = 0;
  /** The file offset just past the physical line being read (its newline included). */
  protected lineEnd = 0;
  /** Read from the start for a count of usage only (skipStatus): the scanner reads less. */
  protected usageOnly = false;
  private pending: Buffer | undefined;
  /** The pooled buffer `pending` is a view of, if any (see takeStore). */
  private store: Buffer | undefined;
  private pretty: PrettyBlock | undefined;
  private readonly fields = new Fields();
  private readonly problemList: LocalProblem[] = [];
  private droppedProblems = 0;
  /** Some problem kinds are reported once per file with a count. */
  private readonly counted = new Map<
    string,
    { kind: string; first: number; count: number; message: string }
  >();

  constructor(path: string) {
    this.path = path;
  }

  /** A field skimmed along with the line (so the scanner need not walk it again). */
  protected nested: Nested | undefined;

  /** A cheap look at the raw line: true skips it unread (it must be a valid entry). */
  protected skipLine(_buf: Buffer, _start: number, _end: number): boolean {
    return false;
  }

  /**
   * Before a read from the start of the file: a scanner may leave work that only the end
   * of the file decides to a second pass (see statusReplay). Nothing by default.
   */
  deferStatus(): void {}

  /**
   * Before a read from the start of the file, for a count of usage only (the usage-report
   * CLI): the status work deferStatus leaves to a second pass is never done. The summary's
   * usage and models are complete; its status facts are not, nor (for a format scanner
   * that reads only usage lines, as Claude Code's does) its titles and branch.
   */
  skipStatus(): void {
    if (this.bytes === 0) this.usageOnly = true;
  }

  /** After such a read: the second pass to make, if any (see ClaudeCodeScanner). */
  statusReplay(): StatusReplay | undefined {
    return undefined;
  }

  /** Takes the result of the second pass. */
  adoptStatus(_replay: LineScanner): void {}

  /** One complete entry (a line, or a re-joined pretty-printed block). */
  protected abstract onEntry(f: Fields, line: number): void;

  /**
   * A Buffer of `bytes` in the skim kernel's memory to read the file's next bytes into and
   * feed (the part read), so that they are skimmed where they were read rather than copied
   * there first. Undefined without a kernel, or when the unfinished line waiting in front
   * of them and they would be too long for it: read into a buffer of your own. Valid
   * until the next load into the kernel on this thread: nothing may feed or read an area
   * between the read and its feed (that feed would throw). The feed writes nothing over
   * the bytes read, so the caller may still read them after it.
   */
  readArea(bytes: number): Buffer | undefined {
    return kernel?.readArea(bytes, this.pending?.length ?? 0);
  }

  /**
   * Feeds the next bytes of the file (the chunk may be reused by the caller afterwards).
   * Lines are read from a copy in the skim kernel's memory (one copy per chunk, none for
   * bytes read into readArea), which the next feed of any scanner on this thread
   * overwrites: nothing may keep a view of it.
   */
  feed(input: Buffer): void {
    const base = this.bytes;
    this.bytes += input.length;
    const room = this.pending?.length ?? 0;
    const area = kernel?.takeArea(input, room);
    if (area) {
      this.feedArea(area, room, base);
      return;
    }
    // Bytes in the kernel's memory elsewhere: the loads below would write over them.
    if (kernel?.holds(input)) input = Buffer.from(input);
    let rest = input;
    let offset = base;
    if (this.pending) {
      const nl = input.indexOf(NEWLINE);
      if (nl < 0) {
        this.keep(input, 0, input.length);
        return;
      }
      this.lineEnd = base + nl + 1;
      const line = this.joined(input, nl);
      this.physicalLine(line, 0, line.length);
      this.dropPending();
      // Only the bytes after that line are loaded (a long line's end is not copied again).
      rest = input.subarray(nl + 1);
      offset = base + nl + 1;
    }
    this.feedLines(kernel ? kernel.load(rest) : rest, offset);
  }

  /**
   * Bytes read into readArea, after `room` bytes left for the unfinished line: that line
   * is copied into the room only once they end it, so a line longer than a read is not
   * copied into the kernel again at every read.
   */
  private feedArea(area: Buffer, room: number, base: number): void {
    if (room > 0) {
      if (kernel!.newline(room, area.length) < 0) {
        this.keep(area, room, area.length);
        return;
      }
      area.set(this.pending!, 0);
      this.dropPending();
    }
    this.feedLines(area, base - room);
  }

  /** The lines of `chunk`, whose first byte is at file offset `offset`; its end is kept. */
  private feedLines(chunk: Buffer, offset: number): void {
    // Lines end where the kernel's SIMD search finds a newline (a native indexOf call
    // costs more per line), or indexOf for bytes not in its memory.
    const k = kernel !== undefined && chunk === kernel.buf ? kernel : undefined;
    let start = 0;
    for (;;) {
      const nl = k ? k.newline(start, chunk.length) : chunk.indexOf(NEWLINE, start);
      if (nl < 0) break;
      this.lineEnd = offset + nl + 1;
      this.physicalLine(chunk, start, nl);
      start = nl + 1;
    }
    // Copy: the caller reuses its read buffer.
    if (start < chunk.length) this.keep(chunk, start, chunk.length);
  }

  /**
   * The unfinished line completed by bytes [0, end) of `input`: both parts go straight
   * into the kernel's memory, not through the pending store first.
   */
  private joined(input: Buffer, end: number): Buffer {
    if (kernel) return kernel.loadJoined(this.pending!, input, end);
    this.keep(input, 0, end);
    return this.pending!;
  }

  /** Appends [start, end) of `input` to the unfinished line, in a store from the pool. */
  private keep(input: Uint8Array, start: number, end: number): void {
    const have = this.pending?.length ?? 0;
    const need = have + end - start;
    let store = this.store;
    if (!store || store.length < need) {
      // A power of two (takeStore): growth doubles.
      const grown = takeStore(need);
      if (have > 0) grown.set(this.pending!);
      if (store) giveStore(store);
      store = this.store = grown;
    }
    store.set(input.subarray(start, end), have);
    this.pending = store.subarray(0, need);
  }

  /** The unfinished line is read: its store goes back to the pool. */
  private dropPending(): void {
    if (this.store) giveStore(this.store);
    this.store = undefined;
    this.pending = undefined;
  }

  /**
   * Called after each read reached the end of the file. A last line without a newline is
   * taken now when it is one complete object; otherwise it waits for the rest.
   */
  finish(): void {
    const tail = this.pending;
    if (!tail || this.pretty) return;
    const f = this.fields;
    if (skimObject(tail, 0, tail.length, f, this.nested)) {
      this.lineEnd = this.bytes;
      this.physicalLine(tail, 0, tail.length);
      this.dropPending();
    } else if (this.store) {
      // It waits for its end, maybe long: a copy of its own, the store back to the pool.
      this.pending = Buffer.from(tail);
      giveStore(this.store);
      this.store = undefined;
    }
  }

  /** The line splitter's state at rest, as plain data (see scannerState.ts). */
  protected saveBase(): BaseScannerState {
    const s: BaseScannerState = {
      lines: this.lines,
      bytes: this.bytes,
      lineEnd: this.lineEnd,
      problems: this.problemList.map((p) => ({ ...p })),
      droppedProblems: this.droppedProblems,
      counted: [...this.counted].map(([key, c]) => [key, { ...c }]),
    };
    if (this.pending) s.pending = Uint8Array.from(this.pending);
    const p = this.pretty;
    if (p) {
      s.pretty = {
        startLine: p.startLine,
        parts: p.parts.map((b) => Uint8Array.from(b)),
        bytes: p.bytes,
        depth: p.depth.depth,
        inString: p.depth.inString,
      };
    }
    return s;
  }

  /** Takes the state saveBase gave (of a scanner of the same file). */
  protected restoreBase(s: BaseScannerState): void {
    this.lines = s.lines;
    this.bytes = s.bytes;
    this.lineEnd = s.lineEnd;
    this.problemList.push(...s.problems.map((p) => ({ ...p })));
    this.droppedProblems = s.droppedProblems;
    for (const [key, c] of s.counted) this.counted.set(key, { ...c });
    if (s.pending && s.pending.length > 0) this.pending = Buffer.from(s.pending);
    if (s.pretty) {
      this.pretty = {
        startLine: s.pretty.startLine,
        parts: s.pretty.parts.map((b) => Buffer.from(b)),
        bytes: s.pretty.bytes,
        depth: { depth: s.pretty.depth, inString: s.pretty.inString },
      };
    }
  }

  /** Persistent problems plus the transient ones (an unfinished last line or entry). */
  problems(): LocalProblem[] {
    const out = this.problemList.slice();
    for (const c of this.counted.values()) {
      out.push({
        kind: c.kind,
        path: this.path,
        line: c.first,
        message:
          c.count > 1 ? `${c.message} (${c.count} lines, first at line ${c.first})` : c.message,
      });
    }
    if (this.droppedProblems > 0) {
      out.push({
        kind: 'more-problems',
        path: this.path,
        message: `${this.droppedProblems} more problems in this file are not listed`,
      });
    }
    if (this.pretty) {
      out.push({
        kind: 'truncated-line',
        path: this.path,
        line: this.pretty.startLine,
        message: `The entry starting at line ${this.pretty.startLine} is not finished yet (read when it completes)`,
      });
    } else if (this.pending && this.pending.toString('latin1').trim() !== '') {
      out.push({
        kind: 'truncated-line',
        path: this.path,
        line: this.lines + 1,
        message: `Line ${this.lines + 1} has no end yet (${this.pending.length} bytes; read when it completes)`,
      });
    }
    return out;
  }

  protected problem(kind: string, message: string, line?: number): void {
    if (this.problemList.length >= MAX_PROBLEMS) {
      this.droppedProblems++;
      return;
    }
    this.problemList.push({ kind, message, path: this.path, ...(line ? { line } : {}) });
  }

  /** A line of a type this scanner does not know: counted once per type name. */
  protected unknownTypeProblem(type: string | undefined, line: number): void {
    const name = type ?? '(none)';
    this.countedProblem(
      'unknown-type',
      `Line ${line} has an unknown type "${name}" (kept as activity, not interpreted)`,
      line,
      `unknown-type:${name}`,
    );
  }

  /** A problem reported once per file (per `key`), counting its occurrences. */
  protected countedProblem(kind: string, message: string, line: number, key = kind): void {
    const c = this.counted.get(key);
    if (c) c.count++;
    else this.counted.set(key, { kind, first: line, count: 1, message });
  }

  private physicalLine(buf: Buffer, start: number, end: number): void {
    const line = ++this.lines;
    if (end > start && buf[end - 1] === CR) end--;
    if (this.pretty) {
      this.continuePretty(buf, start, end, line);
      return;
    }
    let s = start;
    while (s < end && (buf[s] === 0x20 || buf[s] === 0x09)) s++;
    if (s === end) return; // blank line
    if (end - start > LONG_LINE_BYTES) {
      this.countedProblem(
        'long-line',
        `Line ${line} is ${((end - start) / 1_048_576).toFixed(1)} MB (read in full)`,
        line,
      );
    }
    if (this.skipLine(buf, start, end)) return;
    const f = this.fields;
    escapes.surrogate = false;
    if (skimObject(buf, start, end, f, this.nested)) {
      if (escapes.surrogate) this.checkSurrogates(buf, start, end, line);
      this.safeEntry(f, line);
      return;
    }
    // Pretty-printed JSON: an object opened on this line and not closed.
    if (buf[s] === OPEN_BRACE) {
      const depth = { depth: 0, inString: false };
      if (depthAfter(buf, start, end, depth) > 0) {
        const part = Buffer.from(buf.subarray(start, end));
        this.pretty = { startLine: line, parts: [part], bytes: part.length, depth };
        return;
      }
    }
    this.problem('invalid-json', `Line ${line} is not valid JSON (skipped)`, line);
  }

  private continuePretty(buf: Buffer, start: number, end: number, line: number): void {
    const block = this.pretty!;
    // A line that is a whole entry on its own at column 0: the open block was broken.
    if (buf[start] === OPEN_BRACE && skimObject(buf, start, end, this.fields, this.nested)) {
      this.pretty = undefined;
      this.problem(
        'invalid-json',
        `Lines ${block.startLine}–${line - 1} are an unfinished entry (skipped)`,
        block.startLine,
      );
      this.lines--;
      this.physicalLine(buf, start, end);
      return;
    }
    const part = Buffer.from(buf.subarray(start, end));
    block.parts.push(part);
    block.bytes += part.length + 1;
    const depth = depthAfter(buf, start, end, block.depth);
    if (depth > 0) {
      if (block.parts.length > PRETTY_MAX_LINES || block.bytes > PRETTY_MAX_BYTES) {
        this.pretty = undefined;
        this.problem(
          'invalid-json',
          `Lines ${block.startLine}–${line}: an entry that never ends (skipped)`,
          block.startLine,
        );
      }
      return;
    }
    this.pretty = undefined;
    const joined = Buffer.from(block.parts.map((p) => p.toString('utf8')).join('\n'));
    const f = this.fields;
    if (depth === 0 && skimObject(joined, 0, joined.length, f, this.nested)) {
      this.countedProblem(
        'pretty-printed',
        `Lines ${block.startLine}–${line} are one pretty-printed entry (read as one)`,
        block.startLine,
      );
      this.checkSurrogates(joined, 0, joined.length, block.startLine);
      this.safeEntry(f, block.startLine);
    } else {
      this.problem(
        'invalid-json',
        `Lines ${block.startLine}–${line} are not valid JSON (skipped)`,
        block.startLine,
      );
    }
  }

  private safeEntry(f: Fields, line: number): void {
    try {
      this.onEntry(f, line);
    } catch (error) {
      // A value the skim accepted but JSON.parse rejects, or an unexpected shape.
      this.problem(
        error instanceof SyntaxError ? 'invalid-json' : 'unreadable-entry',
        `Line ${line} could not be read: ${error instanceof Error ? error.message : String(error)}`,
        line,
      );
    }
  }

  /** Reports escaped lone UTF-16 surrogates (JSON.parse keeps them; titles repair them). */
  private checkSurrogates(buf: Buffer, start: number, end: number, line: number): void {
    if (hasLoneSurrogateEscape(buf.subarray(start, end))) {
      this.countedProblem(
        'lone-surrogate',
        `Line ${line} contains a lone UTF-16 surrogate (kept; shown as U+FFFD)`,
        line,
      );
    }
  }
}

function hexAt(view: Buffer, i: number): number {
  const text = view.toString('latin1', i, i + 4);
  return /^[0-9a-fA-F]{4}$/.test(text) ? parseInt(text, 16) : -1;
}

/** Whether `\uD800`–`\uDFFF` escapes appear other than as high+low pairs. */
export function hasLoneSurrogateEscape(view: Buffer): boolean {
  for (let i = view.indexOf(BACKSLASH); i >= 0 && i < view.length;) {
    let run = 0;
    while (view[i + run] === BACKSLASH) run++;
    const at = i + run - 1; // the last backslash of the run
    if (run % 2 === 1 && view[at + 1] === 0x75 /* u */) {
      const code = hexAt(view, at + 2);
      if (code >= 0xd800 && code <= 0xdbff) {
        const next = view[at + 6] === BACKSLASH && view[at + 7] === 0x75 ? hexAt(view, at + 8) : -1;
        if (next < 0xdc00 || next > 0xdfff) return true;
        i = view.indexOf(BACKSLASH, at + 12);
        continue;
      }
      if (code >= 0xdc00 && code <= 0xdfff) return true;
    }
    i = view.indexOf(BACKSLASH, i + run);
  }
  return false;
}
