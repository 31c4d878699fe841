/**
 * The saved rows: the sessions as a window's last checked listing showed them (summaries,
 * their statuses for every age of the last write, the quality flag) and its problems, in
 * a compact file beside the persisted index, so that a window that opens can show its
 * tree before it has listed the folders and decoded the index (issue #18). Reading it
 * makes no object per row: ShownRows (savedRowsView.ts) builds the rows a listing pages
 * over on demand. Shown rows are never used as data: the checked listing replaces them.
 *
 * Layout (little-endian): magic "ASI-ROWS", u32 format version, u32 header JSON length,
 * header JSON {config, rows, strings, bodyBytes, bodyCrc}; the body at the next multiple
 * of 8: u32 tables JSON length, tables JSON {keys: [[name, kind]], statuses, problems},
 * padding to 8; f64 × n per 'n' key (NaN: absent), f64 × n last write, f64 × n last
 * activity (NaN: none); u32 × n per 's' or 'j' key (string index, NONE: absent), u32 × 4n
 * status indexes (one per age band, see bandsOf), u32 × strings string ends; u8 × n
 * quality flags; the strings, UTF-8, one after the other ('j': JSON text).
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { LocalSession } from './aggregate.ts';
import { deriveLocalStatus, type LocalStatus, type StatusThresholds } from './localStatus.ts';
import { bytesOf, crc32, u32 } from './persistedIndex.ts';
import type { LocalProblem } from './types.ts';

/** The layout above; bump on any change to it. */
export const SAVED_ROWS_FORMAT_VERSION = 1;
const MAGIC = Buffer.from('ASI-ROWS', 'latin1');
export const NONE = 0xffffffff;
/** Summary fields not stored per row: derived again when the rows are read, or stamped. */
const DERIVED = new Set(['status', 'waitingSince', 'endedAt', 'connectionId']);

export type Kind = 's' | 'n' | 'j';

/** A rows file as read: its columns, views over the file's bytes. */
export interface SavedColumns {
  rows: number;
  keys: [string, Kind][];
  /** Per key: Float64Array for 'n', Uint32Array of string indexes otherwise. */
  columns: (Float64Array | Uint32Array)[];
  lastWrite: Float64Array;
  activity: Float64Array;
  /** Four per row: the status in each age band (bandsOf). */
  status: Uint32Array;
  statuses: LocalStatus[];
  quality: Uint8Array;
  stringEnds: Uint32Array;
  blob: Buffer;
  problems: LocalProblem[];
}

/** Why a saved rows file cannot be used. */
export class RowsProblem extends Error {
  /** Saved by another version or with other settings: to be expected, not logged. */
  readonly expected: boolean;

  constructor(message: string, expected = false) {
    super(message);
    this.expected = expected;
  }
}

/**
 * The lower ends of the age bands in which a session's derived status is constant: the
 * status rules compare the age of the last write with each threshold and nothing else.
 */
export function bandsOf(t: StatusThresholds): number[] {
  return [0, ...[t.activeMs, t.idleMs, t.waitingMaxMs].sort((a, b) => a - b)];
}

/** The band (index in `bands`, from bandsOf) of a last write `age` ms old. */
export function bandOf(bands: readonly number[], age: number): number {
  let band = 0;
  while (band < 3 && Math.max(0, age) >= bands[band + 1]!) band++;
  return band;
}

/**
 * The rows file's bytes for `sessions` (sorted as shown) and `problems`, at `now`; the
 * host's thread is free between the steps (at 11,000 rows each takes tens of ms).
 */
export async function encodeSavedRows(
  sessions: readonly LocalSession[],
  problems: readonly LocalProblem[],
  config: string,
  thresholds: StatusThresholds,
  now: number,
): Promise<Buffer> {
  const n = sessions.length;
  const strings = new Interned();
  const statuses: LocalStatus[] = [];
  const keys = keysOf(sessions);
  await nextTurn();
  const numbers = keys.filter(([, kind]) => kind === 'n');
  const texts = keys.filter(([, kind]) => kind !== 'n');
  const { f64, u32s } = columnsOf(sessions, numbers, texts, strings);
  await nextTurn();
  const lastWrite = new Float64Array(n);
  const activity = new Float64Array(n);
  const quality = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const s = sessions[i]!;
    lastWrite[i] = s.lastWriteMs;
    activity[i] = Date.parse(s.summary.lastActivityAt ?? '');
    quality[i] = s.file.substantive ? 1 : 0;
  }
  f64.push(lastWrite, activity);
  u32s.push(statusIndexes(sessions, thresholds, now, statuses));
  await nextTurn();
  const stringEnds = new Uint32Array(strings.list.length);
  let end = 0;
  strings.list.forEach((text, i) => (stringEnds[i] = end += Buffer.byteLength(text)));
  u32s.push(stringEnds);
  const blob = Buffer.from(strings.list.join(''));
  const tables = Buffer.from(
    JSON.stringify({
      keys: [...numbers, ...texts],
      statuses,
      problems,
    }),
  );
  const body = Buffer.concat([
    u32(tables.length),
    tables,
    padding(4 + tables.length),
    ...[...f64, ...u32s, quality].map(bytesOf),
    blob,
  ]);
  const header = Buffer.from(
    JSON.stringify({
      config,
      rows: n,
      strings: strings.list.length,
      bodyBytes: body.length,
      bodyCrc: crc32(body),
    }),
  );
  const start = Buffer.alloc(16);
  MAGIC.copy(start, 0);
  start.writeUInt32LE(SAVED_ROWS_FORMAT_VERSION, 8);
  start.writeUInt32LE(header.length, 12);
  return Buffer.concat([start, header, padding(16 + header.length), body]);
}

/**
 * The columns `encodeSavedRows` wrote; throws RowsProblem when the bytes are not such a
 * file, are damaged, or were saved for another `config`.
 */
export function decodeSavedRows(buf: Buffer, config: string): SavedColumns {
  if (buf.length < 16 || !buf.subarray(0, 8).equals(MAGIC))
    throw new RowsProblem('not a rows file');
  const version = buf.readUInt32LE(8);
  if (version !== SAVED_ROWS_FORMAT_VERSION)
    throw new RowsProblem(`format version ${version}`, true);
  const headerEnd = 16 + buf.readUInt32LE(12);
  if (headerEnd > buf.length) throw new RowsProblem('truncated header');
  const header = parseJson(buf.toString('utf8', 16, headerEnd)) as Record<string, unknown>;
  if (header.config !== config) throw new RowsProblem('saved for other settings', true);
  const { rows: n, strings, bodyBytes } = header;
  const bodyAt = align8(headerEnd);
  if (!isCount(n) || !isCount(strings) || !isCount(bodyBytes)) throw new RowsProblem('bad header');
  if (bodyAt + bodyBytes !== buf.length) throw new RowsProblem('truncated');
  let body = buf.subarray(bodyAt);
  if (crc32(body) !== header.bodyCrc) throw new RowsProblem('checksum mismatch');
  // Typed views need their element size's alignment in the underlying memory.
  if (body.byteOffset % 8 !== 0) body = Buffer.from(Uint8Array.prototype.slice.call(body));
  const r = new BodyReader(body);
  const tables = r.tables();
  const numbers = tables.keys.filter(([, kind]) => kind === 'n').length;
  const f64 = Array.from({ length: numbers + 2 }, () => r.f64(n));
  const texts = tables.keys.length - numbers;
  // String and status indexes, and string ends, are checked where they are used
  // (savedRowsView.ts): a window looks at a page of rows, not all of them.
  const u32s = Array.from({ length: texts }, () => r.u32(n));
  const status = r.u32(4 * n);
  const stringEnds = r.u32(strings);
  const quality = r.u8(n);
  const blob = r.rest();
  return {
    rows: n,
    keys: tables.keys,
    columns: [...f64.slice(0, numbers), ...u32s],
    lastWrite: f64[numbers]!,
    activity: f64[numbers + 1]!,
    status,
    statuses: tables.statuses,
    quality,
    stringEnds,
    blob,
    problems: tables.problems,
  };
}

/** The summary fields' columns: numbers (NaN: absent), and string indexes (NONE: absent). */
function columnsOf(
  sessions: readonly LocalSession[],
  numbers: readonly [string, Kind][],
  texts: readonly [string, Kind][],
  strings: Interned,
): { f64: Float64Array[]; u32s: Uint32Array[] } {
  const n = sessions.length;
  const f64 = numbers.map(() => new Float64Array(n).fill(NaN));
  const u32s = texts.map(() => new Uint32Array(n).fill(NONE));
  const where = new Map<string, { column: Float64Array | Uint32Array; json: boolean }>();
  numbers.forEach(([key], k) => where.set(key, { column: f64[k]!, json: false }));
  texts.forEach(([key, kind], k) => where.set(key, { column: u32s[k]!, json: kind === 'j' }));
  for (let i = 0; i < n; i++) {
    const summary = sessions[i]!.summary as unknown as Record<string, unknown>;
    for (const key in summary) {
      const value = summary[key];
      const to = where.get(key);
      if (!to || value === undefined) continue;
      if (to.column instanceof Float64Array) to.column[i] = value as number;
      else to.column[i] = strings.of(to.json ? JSON.stringify(value) : (value as string));
    }
  }
  return { f64, u32s };
}

/**
 * Four per row: the index in `statuses` (filled) of its derived status in each age band.
 * Bands younger than the row's age at `now` get the status of its band now: a clock set
 * back is the only way back to them (and the checked rows correct that).
 */
function statusIndexes(
  sessions: readonly LocalSession[],
  thresholds: StatusThresholds,
  now: number,
  statuses: LocalStatus[],
): Uint32Array {
  const bands = bandsOf(thresholds);
  const out = new Uint32Array(4 * sessions.length);
  const known = new Map<string, number>();
  for (let i = 0; i < sessions.length; i++) {
    const s = sessions[i]!;
    const from = bandOf(bands, now - s.lastWriteMs);
    for (let b = from; b < 4; b++) {
      const derived = deriveLocalStatus(
        {
          harness: s.harness,
          role: s.role,
          facts: s.file.last,
          lastWriteMs: s.lastWriteMs,
          now: s.lastWriteMs + bands[b]!,
          archived: s.archived,
        },
        thresholds,
      );
      // Every field of a LocalStatus.
      const { status, outcome, raw, waitingSince } = derived;
      const key = `${status}\n${outcome}\n${raw}\n${waitingSince}`;
      let index = known.get(key);
      if (index === undefined) {
        index = statuses.push(derived) - 1;
        known.set(key, index);
      }
      out[4 * i + b] = index;
    }
    for (let b = 0; b < from; b++) out[4 * i + b] = out[4 * i + from]!;
  }
  return out;
}

/** Every stored summary field with its column kind, numbers first. */
function keysOf(sessions: readonly LocalSession[]): [string, Kind][] {
  const kinds = new Map<string, Kind>();
  for (const s of sessions) {
    const summary = s.summary as unknown as Record<string, unknown>;
    for (const key in summary) {
      const value = summary[key];
      if (value === undefined || DERIVED.has(key)) continue;
      const kind: Kind =
        typeof value === 'string'
          ? 's'
          : typeof value === 'number' && !Number.isNaN(value)
            ? 'n'
            : 'j';
      const known = kinds.get(key);
      kinds.set(key, known === undefined || known === kind ? kind : 'j');
    }
  }
  return [...kinds].sort(([, a], [, b]) => Number(b === 'n') - Number(a === 'n'));
}

/** Views over the body's parts in order, each length checked against the body. */
class BodyReader {
  private at = 0;
  private readonly body: Buffer;

  constructor(body: Buffer) {
    this.body = body;
  }

  tables(): Pick<SavedColumns, 'keys' | 'statuses' | 'problems'> {
    if (this.body.length < 4) throw new RowsProblem('truncated tables');
    const end = 4 + this.body.readUInt32LE(0);
    if (end > this.body.length) throw new RowsProblem('truncated tables');
    const t = parseJson(this.body.toString('utf8', 4, end)) as Record<string, unknown>;
    const { keys, statuses, problems } = t;
    if (
      !Array.isArray(keys) ||
      !Array.isArray(statuses) ||
      !Array.isArray(problems) ||
      !keys.every((k) => Array.isArray(k) && typeof k[0] === 'string' && 'snj'.includes(k[1])) ||
      !statuses.every((s) => typeof (s as LocalStatus | null)?.status === 'string')
    ) {
      throw new RowsProblem('bad tables');
    }
    this.at = align8(end);
    return t as Pick<SavedColumns, 'keys' | 'statuses' | 'problems'>;
  }

  f64(n: number): Float64Array {
    return new Float64Array(this.body.buffer, this.take(8 * n), n);
  }

  u32(n: number): Uint32Array {
    return new Uint32Array(this.body.buffer, this.take(4 * n), n);
  }

  u8(n: number): Uint8Array {
    return new Uint8Array(this.body.buffer, this.take(n), n);
  }

  rest(): Buffer {
    return this.body.subarray(this.at);
  }

  /** The byte offset of the next `bytes` in the underlying memory. */
  private take(bytes: number): number {
    if (this.at + bytes > this.body.length) throw new RowsProblem('truncated columns');
    const at = this.body.byteOffset + this.at;
    this.at += bytes;
    return at;
  }
}

/** Values numbered in order of first use (each distinct value stored once). */
class Interned {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();

  of(value: string): number {
    let i = this.index.get(value);
    if (i === undefined) {
      i = this.list.length;
      this.list.push(value);
      this.index.set(value, i);
    }
    return i;
  }
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RowsProblem('bad JSON');
  }
}

const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const align8 = (n: number) => (n + 7) & ~7;
const padding = (n: number) => Buffer.alloc(align8(n) - n);
