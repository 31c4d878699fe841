/**
 * Records and entries over the lines of a JSONL file, built in the same pass as the line
 * index. A record is one JSON value: usually one line, sometimes a pretty-printed value
 * over several lines, or a malformed line (an error record). For each record the index
 * keeps a few bytes — its lines, kind, entry count, first entry and turn group — so that
 * entry i maps to its record by binary search and a window parses only its own records.
 *
 * Each record is checked by the JSON scanner's validating mode (exactly JSON.parse's
 * verdict, line by line) and then skimmed (src/domain/json): the format's collector reads
 * the few fields it needs from the skim. No JSON.parse, no strings except the few ids the
 * pairing needs; both passes run in the scanner's WebAssembly kernel where it exists.
 */
import { Fields, skimObject } from '../json/skim.ts';
import { kernel } from '../json/skimKernel.ts';
import { JSON_DONE, JSON_INVALID, JsonValidator } from '../json/validate.ts';
import { Growable } from './growable.ts';
import type { LineSink } from './jsonlIndex.ts';
import {
  RK_ERROR,
  newPairing,
  type FormatAdapter,
  type Pairing,
  type RecordCollector,
} from './normalize/types.ts';

/** A record open longer than this is cut into an error record (a runaway bracket). */
const MAX_RECORD_LINES = 100_000;
const MAX_ROWS = 0xffff; // a record with more blocks than this is broken anyway
/**
 * A record over several lines is kept (copied) up to this size to be skimmed whole; a
 * larger one is still validated, and planned as an unknown record.
 */
const MAX_RECORD_BYTES = 64 << 20;

export class RecordIndex implements LineSink {
  /** 0-based first and last line of each record. */
  readonly firstLine = new Growable(Uint32Array);
  readonly lastLine = new Growable(Uint32Array);
  /** RK_* per record. */
  readonly kinds = new Growable(Uint32Array);
  /** Entries each record produces. */
  readonly rows = new Growable(Uint32Array);
  /** Entries before each record (non-decreasing: the entry → record map). */
  readonly entryStarts = new Growable(Float64Array);
  /** Hash of the record's turn group (0: none), for finding a turn's neighbours. */
  readonly groups = new Growable(Uint32Array);
  /** Records that are not valid JSON, ascending. */
  readonly errorRecords = new Growable(Uint32Array, 64);
  readonly pairing: Required<Pairing> = newPairing();
  readonly hidden = new Map<string, number>();
  entryCount = 0;
  /** Where the agent ran, when a record said so (Codex session_meta). */
  cwd: string | undefined;
  private openFirst = -1;
  private readonly validator = new JsonValidator();
  private readonly fields = new Fields();
  private readonly collector: RecordCollector;
  /** The lines so far of a record spanning lines (copies), and their bytes. */
  private readonly parts: Buffer[] = [];
  private partBytes = 0;

  constructor(adapter: FormatAdapter) {
    this.collector = adapter.createCollector();
  }

  get recordCount(): number {
    return this.kinds.length;
  }

  /** First line of a record still open at the end of the indexed lines, or -1. */
  get openRecordLine(): number {
    return this.openFirst;
  }

  line(buf: Buffer, start: number, end: number, lineIndex: number): void {
    let s = start;
    let e = end;
    if (e > s && buf[e - 1] === 0x0d) e--;
    if (
      lineIndex === 0 &&
      e - s >= 3 &&
      buf[s] === 0xef &&
      buf[s + 1] === 0xbb &&
      buf[s + 2] === 0xbf
    )
      s += 3; // UTF-8 byte order mark
    if (this.openFirst < 0) {
      if (isBlank(buf, s, e)) return;
      this.begin(lineIndex);
    } else if (s < e && buf[s] === 0x7b) {
      // '{' in column 0 while a record is open: that record was cut short (pretty-printed
      // JSON indents everything but its outer braces).
      this.commitError(lineIndex - 1);
      this.begin(lineIndex);
    } else if (lineIndex - this.openFirst >= MAX_RECORD_LINES) {
      this.commitError(lineIndex);
      return;
    }
    // Validated and skimmed from a copy in the scanner's kernel, when there is one.
    if (kernel) {
      buf = kernel.loadLine(buf, s, e);
      e -= s;
      s = 0;
    }
    const status = this.validator.feed(buf, s, e);
    if (status === JSON_INVALID) {
      this.commitError(lineIndex);
    } else if (status === JSON_DONE && this.openFirst === lineIndex) {
      this.commit(lineIndex, buf, s, e);
    } else {
      // A value spanning lines: kept (the chunk is reused) and skimmed whole when complete.
      if (this.partBytes <= MAX_RECORD_BYTES) {
        this.parts.push(Buffer.from(buf.subarray(s, e)));
        this.partBytes += e - s + 1;
      }
      if (status === JSON_DONE) {
        const joined = this.partBytes <= MAX_RECORD_BYTES ? joinLines(this.parts) : undefined;
        this.commit(lineIndex, joined ?? Buffer.alloc(0), 0, joined?.length ?? 0);
      }
    }
  }

  reset(): void {
    for (const g of [
      this.firstLine,
      this.lastLine,
      this.kinds,
      this.rows,
      this.entryStarts,
      this.groups,
      this.errorRecords,
    ])
      g.clear();
    this.pairing.calls.clear();
    this.pairing.results.clear();
    this.pairing.open.clear();
    this.pairing.abandoned.clear();
    this.pairing.seen.clear();
    this.hidden.clear();
    this.entryCount = 0;
    this.cwd = undefined;
    this.openFirst = -1;
  }

  /** The record holding entry `entry` (0 <= entry < entryCount). */
  recordOfEntry(entry: number): number {
    return this.entryStarts.floorIndex(entry);
  }

  private begin(lineIndex: number): void {
    this.validator.reset();
    if (this.parts.length > 0) this.parts.length = 0;
    this.partBytes = 0;
    this.openFirst = lineIndex;
  }

  private push(last: number, kind: number, rows: number, group: number): number {
    const record = this.kinds.length;
    this.firstLine.push(this.openFirst);
    this.lastLine.push(last);
    this.kinds.push(kind);
    this.rows.push(rows);
    this.entryStarts.push(this.entryCount);
    this.groups.push(group);
    this.entryCount += rows;
    this.openFirst = -1;
    return record;
  }

  /** A valid record, whose bytes are [start, end) of `buf` (empty: too large to keep). */
  private commit(last: number, buf: Buffer, start: number, end: number): void {
    const f = this.fields;
    const isObject = skimObject(buf, start, end, f, this.collector.nested);
    const plan = this.collector.plan(isObject ? f : undefined, this.pairing, this.kinds.length);
    if (this.parts.length > 0) this.parts.length = 0;
    if (plan.hiddenType !== undefined)
      this.hidden.set(plan.hiddenType, (this.hidden.get(plan.hiddenType) ?? 0) + 1);
    if (plan.cwd !== undefined) this.cwd ??= plan.cwd;
    const group = plan.group === undefined ? 0 : groupHash(plan.group);
    this.push(last, plan.kind, Math.min(MAX_ROWS, plan.rows), group);
  }

  private commitError(last: number): void {
    const record = this.push(last, RK_ERROR, 1, 0);
    this.errorRecords.push(record);
  }
}

function joinLines(parts: Buffer[]): Buffer {
  const out = Buffer.allocUnsafe(parts.reduce((n, p) => n + p.length + 1, -1));
  let at = 0;
  for (const [i, part] of parts.entries()) {
    if (i > 0) out[at++] = 0x0a;
    at += part.copy(out, at);
  }
  return out;
}

function isBlank(buf: Buffer, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    const c = buf[i];
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false;
  }
  return true;
}

/** FNV-1a of the group id; never 0 (0 means "no group"). */
export function groupHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0 || 1;
}
