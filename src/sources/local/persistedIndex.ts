/**
 * The local scan cache on disk, in the extension's global storage: every indexed file's
 * cache key (path, size, mtime, inode, device), its last bytes, its scanner's state at
 * rest, its usage records and the row the saving window's aggregation made of it (token
 * sums, group, key hashes), so that a window that opens reads only what changed since
 * any window last read, continues a grown file from where that window stopped, and
 * shows its rows without decoding a usage record (they are decoded when something reads
 * them: LazyUsage). One index per set of transcript folders; format and guarantees in
 * docs/local-index.md.
 *
 * The file is written whole to a temporary file in the same folder, flushed to disk and
 * renamed over the index, so a reader sees the old index or the new one, never a mix.
 * What is read is checked (magic, format and scanner versions, folders, length,
 * checksum, every length inside) before it is used; an index that fails any check is
 * not used, logged once, and written anew after the next scan.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { mkdir, open, readdir, rename, stat, unlink, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { dirname, join } from 'node:path';
// node:crypto and node:zlib are loaded where they are used: the usage-report CLI, which
// never persists, would otherwise load them at start-up (about 20 ms).
import type { crc32 as ZlibCrc32 } from 'node:zlib';
import type { RowMemo, RowTotals } from './aggregate.ts';
import { IndexLock, type IndexLockOptions } from './indexLock.ts';
import { packUsage, unpackUsage, type PackedUsage } from './engine/packedUsage.ts';
import { resumeScanner } from './scanners.ts';
import {
  orNaN,
  SCANNER_STATE_VERSION,
  type BaseScannerState,
  type ScannerState,
} from './scannerState.ts';
import type { FileSummary, MetaRead, UsageRecord } from './types.ts';

/** The layout below; bump on any change to it. */
export const INDEX_FORMAT_VERSION = 3;
const MAGIC = Buffer.from('ASI-LIDX', 'latin1');
/** The header's room at the start of the file (written last, see save). */
const HEADER_BYTES = 4096;
/** Default cap on the index's size; the oldest files' entries are left out beyond it. */
export const DEFAULT_MAX_INDEX_BYTES = 200 << 20;
/** An unfinished last line (or entry) longer than this is not saved: such a file is read again. */
const MAX_PENDING_BYTES = 16 << 20;
/** Records are written in groups of about this size (the host's thread is free between). */
const WRITE_GROUP_BYTES = 1 << 20;
/** Temporary files of a writer that died are removed after this long (or at once when its pid is gone). */
const ORPHAN_MS = 3_600_000;
/** Indexes of other folders not written for this long are removed (folders no window reads). */
const UNUSED_INDEX_MS = 30 * 86_400_000;
/** Numbers per usage record (see packedUsage.ts). */
const NUMBERS = 7;

export interface PersistOptions {
  /** The folder of the index (created when missing). */
  dir: string;
  /** The extension's version: an index another version wrote is rebuilt. */
  version: string;
  /** Cap on the index file's size (default 200 MB). */
  maxBytes?: number;
  /** Where the one line about an index that cannot be used goes. */
  log?: (message: string) => void;
  lock?: IndexLockOptions;
  /** How long after a change the index is saved (default 30 s; a first scan saves at once). */
  saveDelayMs?: number;
}

export interface PersistStats {
  /** Index files read and used. */
  loads: number;
  /** Entries in the index files read. */
  loadedEntries: number;
  /** Milliseconds spent reading and decoding index files. */
  loadMs: number;
  /** Index files that could not be used (each logged once). */
  rejected: number;
  saves: number;
  savedEntries: number;
  savedBytes: number;
  /** Entries left out of the last save by the size cap. */
  evicted: number;
  /** Times another window's lock was waited for. */
  lockWaits: number;
  /** Stale locks taken over. */
  lockTakeovers: number;
}

/** Why an index file cannot be used. */
export class IndexProblem extends Error {}

/** The row an aggregation made of a file, as saved with it (see Aggregation). */
export type SavedRow = Pick<RowMemo, 'totals' | 'group' | 'hashes'>;

/** A file's entry as the persisted index keeps it: cache key, tail, state and records. */
export interface RestingFile {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
  tail: Uint8Array;
  state: ScannerState;
  usage: ReadonlyMap<string, UsageRecord>;
  copies: ReadonlyMap<string, UsageRecord>;
  /**
   * The file's summary (saving: the one in this cache, by which the aggregation's row is
   * looked up; loaded: as saved, its records read from the index on first use).
   */
  summary?: FileSummary;
  /** Loaded: the state and records as the index holds them (read on first use). */
  body?: SavedBody;
  /** Loaded: the row the saving window's aggregation made of the file (prices matching). */
  row?: SavedRow;
  /**
   * A subagent's meta file as read for this very size and mtime of the transcript (the
   * key readMeta caches it by), when it was read without a problem.
   */
  meta?: MetaRead;
}

/** A file descriptor of an index file as read, for the bodies read later (see SavedBody). */
class BodySource {
  private fd: number | undefined;
  readonly path: string;

  constructor(fd: number, path: string) {
    this.fd = fd;
    this.path = path;
  }

  size(): number {
    if (this.fd === undefined) throw new IndexProblem('the index was closed');
    return fstatSync(this.fd).size;
  }

  read(position: number, length: number): Buffer {
    if (this.fd === undefined) throw new IndexProblem('the index was closed');
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, buf, done, length - done, position + done);
      if (n === 0) throw new IndexProblem('the index ends early');
      done += n;
    }
    return buf;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}

/**
 * A saved file's scanner state and usage records, read from the index when first needed
 * (a grown file is continued, the usage report reads records, a save copies them): a
 * window that opens needs only the rows and summaries. Read through the descriptor the
 * index was loaded with, so a newer index saved meanwhile does not matter.
 */
export class SavedBody {
  readonly usage: LazyMap;
  readonly copies: LazyMap;
  private readonly source: BodySource;
  private readonly position: number;
  private readonly length: number;
  private readonly crc: number;
  private state_: ScannerState | undefined;
  private filled = false;

  constructor(source: BodySource, position: number, length: number, crc: number) {
    this.source = source;
    this.position = position;
    this.length = length;
    this.crc = crc;
    this.usage = new LazyMap(this);
    this.copies = new LazyMap(this);
  }

  /** The bytes as saved (checked against their checksum). */
  raw(): Buffer {
    const buf = this.source.read(this.position, this.length);
    if (crc32(buf) !== this.crc) throw new IndexProblem(`checksum mismatch in ${this.source.path}`);
    return buf;
  }

  state(): ScannerState {
    if (!this.state_) {
      const buf = this.raw();
      const r = new Reader(buf, 0, buf.length);
      this.state_ = decodeState(r.json(r.u32()) as StateJson);
      if (!this.filled) this.fillFrom(r);
    }
    return this.state_;
  }

  /** Reads the records into `usage` and `copies` (once). */
  fill(): void {
    if (this.filled) return;
    if (this.state_) {
      const buf = this.raw();
      const r = new Reader(buf, 0, buf.length);
      r.bytes(r.u32());
      this.fillFrom(r);
    } else this.state();
  }

  private fillFrom(r: Reader): void {
    this.filled = true;
    decodeUsage(r, this.usage);
    decodeUsage(r, this.copies);
    if (!r.done()) throw new IndexProblem('a record has bytes left over');
  }
}

/**
 * A Map of a saved file's records that reads them from the index on first use (every
 * method and `size` first fills it), so a summary can hold it like any Map.
 */
export class LazyMap extends Map<string, UsageRecord> {
  private body: SavedBody | undefined;

  constructor(body: SavedBody) {
    super();
    this.body = body;
  }

  /** Whether the records were read. */
  get decoded(): boolean {
    return this.body === undefined;
  }

  private fill(): void {
    const body = this.body;
    if (body) {
      this.body = undefined;
      body.fill();
    }
  }

  /** Map.set without filling (the body's own decoding). */
  put(key: string, value: UsageRecord): void {
    super.set(key, value);
  }

  override get size(): number {
    this.fill();
    return super.size;
  }
  override get(key: string): UsageRecord | undefined {
    this.fill();
    return super.get(key);
  }
  override has(key: string): boolean {
    this.fill();
    return super.has(key);
  }
  override set(key: string, value: UsageRecord): this {
    this.fill();
    return super.set(key, value);
  }
  override delete(key: string): boolean {
    this.fill();
    return super.delete(key);
  }
  override clear(): void {
    this.fill();
    super.clear();
  }
  override forEach(
    callback: (value: UsageRecord, key: string, map: Map<string, UsageRecord>) => void,
    thisArg?: unknown,
  ): void {
    this.fill();
    super.forEach(callback, thisArg);
  }
  override keys(): MapIterator<string> {
    this.fill();
    return super.keys();
  }
  override values(): MapIterator<UsageRecord> {
    this.fill();
    return super.values();
  }
  override entries(): MapIterator<[string, UsageRecord]> {
    this.fill();
    return super.entries();
  }
  override [Symbol.iterator](): MapIterator<[string, UsageRecord]> {
    this.fill();
    return super[Symbol.iterator]();
  }
}

/** A file as an index holds it: state and records read when first used (SavedBody). */
class SavedFile implements RestingFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  readonly dev: number;
  readonly tail: Uint8Array;
  readonly summary: FileSummary;
  readonly body: SavedBody;
  row?: SavedRow;
  meta?: MetaRead;

  constructor(meta: MetaJson, tail: Uint8Array, summary: FileSummary, body: SavedBody) {
    this.path = meta.p;
    this.size = meta.s;
    this.mtimeMs = meta.m;
    this.ino = meta.i;
    this.dev = meta.d;
    this.tail = tail;
    this.summary = summary;
    this.body = body;
  }

  get state(): ScannerState {
    return this.body.state();
  }
  get usage(): ReadonlyMap<string, UsageRecord> {
    return this.body.usage;
  }
  get copies(): ReadonlyMap<string, UsageRecord> {
    return this.body.copies;
  }
}

/** A file's identity as stat gives it, to tell whether an index file changed. */
type FileKey = string;

export class PersistedIndex {
  readonly file: string;
  readonly lock: IndexLock;
  readonly stats: PersistStats = {
    loads: 0,
    loadedEntries: 0,
    loadMs: 0,
    rejected: 0,
    saves: 0,
    savedEntries: 0,
    savedBytes: 0,
    evicted: 0,
    lockWaits: 0,
    lockTakeovers: 0,
  };
  private readonly options: PersistOptions;
  private readonly scanner: string;
  private readonly roots: string;
  /** The prices the saved rows' costs were worked out with: other prices, rows not used. */
  private readonly pricing: string;
  /** The index file as last read or written here: not read again while it is unchanged. */
  private known: FileKey | undefined;
  /** Index files loaded, kept open for their entries' bodies (SavedBody). */
  private readonly sources: BodySource[] = [];

  /**
   * `roots`: the transcript folders this index is for (one index per set). `pricing`:
   * what the rows' costs depend on (the price data's version and any overrides).
   */
  constructor(options: PersistOptions, roots: readonly string[], pricing = '') {
    this.options = options;
    this.pricing = pricing;
    this.roots = [...roots].sort().join('\n');
    this.scanner = `${SCANNER_STATE_VERSION}/${options.version}`;
    const { createHash } = process.getBuiltinModule('node:crypto');
    const key = createHash('sha256').update(this.roots).digest('hex').slice(0, 16);
    this.file = join(options.dir, `local-${key}.idx`);
    this.lock = new IndexLock(join(options.dir, `local-${key}.lock`), options.lock);
  }

  /** What the saved rows depend on besides the thresholds: versions, folders, prices. */
  get settings(): string {
    return `${this.scanner}\n${this.roots}\n${this.pricing}`;
  }

  /** Whether persisting works on this machine (the format is little-endian). */
  static supported(): boolean {
    return endianness() === 'LE';
  }

  get saveDelayMs(): number {
    return this.options.saveDelayMs ?? 30_000;
  }

  /** Whether an index file exists (a first scan with none starts its helpers early). */
  async exists(): Promise<boolean> {
    return stat(this.file).then(
      (s) => s.isFile(),
      () => false,
    );
  }

  /**
   * The index's entries by path when the file changed since it was last read or written
   * here; undefined when it did not, is missing, or cannot be used (logged once per file).
   */
  async loadIfChanged(): Promise<Map<string, RestingFile> | undefined> {
    const started = performance.now();
    let key: FileKey;
    try {
      key = fileKey(await stat(this.file));
    } catch {
      return undefined;
    }
    if (key === this.known) return undefined;
    this.known = key;
    let fd: number | undefined;
    try {
      fd = openSync(this.file, 'r');
      const source = new BodySource(fd, this.file);
      const entries = decodeIndex(source, this.scanner, this.roots, this.pricing);
      this.sources.push(source);
      fd = undefined;
      this.stats.loads++;
      this.stats.loadedEntries += entries.size;
      return entries;
    } catch (error) {
      this.stats.rejected++;
      const reason = error instanceof IndexProblem ? error.message : String(error);
      this.options.log?.(
        `Local transcripts: the saved index ${this.file} cannot be used (${reason}); ` +
          'it is rebuilt from the transcripts.',
      );
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
      this.stats.loadMs += performance.now() - started;
    }
  }

  /** Closes the index files loaded (their entries' bodies can no longer be read). */
  close(): void {
    for (const source of this.sources.splice(0)) source.close();
  }

  /**
   * Writes `files` as the new index: newest first, up to the size cap, to a temporary
   * file that replaces the index once it is on disk. `rowOf`: the row the last
   * aggregation made of a file, when it was made of this very entry.
   */
  async save(
    files: readonly RestingFile[],
    rowOf: (f: RestingFile) => SavedRow | undefined = () => undefined,
  ): Promise<void> {
    await mkdir(this.options.dir, { recursive: true });
    await this.removeOrphans();
    const maxBytes = this.options.maxBytes ?? DEFAULT_MAX_INDEX_BYTES;
    const ordered = [...files].sort((a, b) => b.mtimeMs - a.mtimeMs);
    let written = 0;
    let evicted = 0;
    let position = HEADER_BYTES;
    await replaceFile(this.file, async (handle) => {
      // Bodies first, as they are encoded; the heads (summaries, rows) after them, last.
      let group: Buffer[] = [];
      let groupBytes = 0;
      const flush = async () => {
        if (groupBytes === 0) return;
        const chunk = Buffer.concat(group, groupBytes);
        await handle.write(chunk, 0, chunk.length, position);
        position += chunk.length;
        group = [];
        groupBytes = 0;
      };
      const heads: Buffer[] = [];
      let headBytes = 0;
      for (const f of ordered) {
        const body = encodeBody(f);
        if (!body) continue;
        const bodyBytes = body.reduce((n, b) => n + b.length, 0);
        const crc = body.reduce((c, b) => crc32(b, c), 0);
        const head = encodeHead(f, rowOf(f), position + groupBytes, bodyBytes, crc);
        if (position + groupBytes + bodyBytes + headBytes + head.length > maxBytes) {
          evicted = ordered.length - written;
          break;
        }
        group.push(...body);
        groupBytes += bodyBytes;
        heads.push(head);
        headBytes += head.length;
        written++;
        if (groupBytes >= WRITE_GROUP_BYTES) await flush();
      }
      await flush();
      const headAt = position;
      const headRegion = Buffer.concat(heads, headBytes);
      await handle.write(headRegion, 0, headRegion.length, headAt);
      position += headRegion.length;
      const header = Buffer.from(
        JSON.stringify({
          scanner: this.scanner,
          roots: this.roots,
          pricing: this.pricing,
          entries: written,
          headAt,
          headBytes,
          headCrc: crc32(headRegion),
          writtenAt: new Date().toISOString(),
          pid: process.pid,
        }),
      );
      if (16 + header.length > HEADER_BYTES) throw new Error('index header too long');
      const head = Buffer.alloc(HEADER_BYTES);
      MAGIC.copy(head, 0);
      head.writeUInt32LE(INDEX_FORMAT_VERSION, 8);
      head.writeUInt32LE(header.length, 12);
      header.copy(head, 16);
      await handle.write(head, 0, HEADER_BYTES, 0);
    });
    this.known = fileKey(await stat(this.file));
    this.stats.saves++;
    this.stats.savedEntries = written;
    this.stats.savedBytes = position;
    this.stats.evicted = evicted;
  }

  /**
   * Temporary files of writers that died mid-write (their process is gone, or long ago),
   * and the indexes of other folders that no window wrote for 30 days.
   */
  private async removeOrphans(): Promise<void> {
    const dir = this.options.dir;
    const own = this.file.slice(dir.length + 1);
    // The saved rows beside the index (savedRowsFile.ts) are written the same way.
    const rows = own.replace(/\.idx$/, '.rows');
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      if (name !== own && name !== rows && /^local-[0-9a-f]{16}\.(idx|rows)$/.test(name)) {
        const path = join(dir, name);
        const unused = await stat(path).then(
          (s) => Date.now() - s.mtimeMs > UNUSED_INDEX_MS,
          () => false,
        );
        if (unused) await unlink(path).catch(() => undefined);
        continue;
      }
      const prefix = [`${own}.`, `${rows}.`].find((p) => name.startsWith(p));
      if (!prefix || !name.endsWith('.tmp')) continue;
      const pid = Number(name.slice(prefix.length).split('.')[0]);
      const path = join(dir, name);
      const old = await stat(path).then(
        (s) => Date.now() - s.mtimeMs > ORPHAN_MS,
        () => false,
      );
      if (old || (pid !== process.pid && !processAlive(pid))) {
        await unlink(path).catch(() => undefined);
      }
    }
  }
}

/**
 * Replaces `file` with what `write` puts into a new temporary file beside it, named
 * `<file>.<pid>.<random>.tmp` (what removeOrphans looks for): flushed to disk, renamed
 * over `file`, then the folder flushed. A reader sees the old file or the new one; on a
 * failure the temporary file is removed and the error thrown.
 */
export async function replaceFile(
  file: string,
  write: (handle: FileHandle) => Promise<void>,
): Promise<void> {
  const { randomUUID } = process.getBuiltinModule('node:crypto');
  const tmp = `${file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
  const handle = await open(tmp, 'wx');
  let renamed = false;
  try {
    await write(handle);
    await handle.sync();
    await handle.close();
    await renameOver(tmp, file);
    renamed = true;
    await syncFolder(dirname(file));
  } finally {
    if (!renamed) {
      await handle.close().catch(() => undefined);
      await unlink(tmp).catch(() => undefined);
    }
  }
}

/**
 * rename, tried again a few times when the target is busy (Windows refuses to replace a
 * file another window is reading at that moment).
 */
export async function renameOver(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rename(from, to);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (attempt >= 4 || (code !== 'EPERM' && code !== 'EBUSY' && code !== 'EACCES')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
    }
  }
}

function fileKey(s: { size: number; mtimeMs: number; ino: number; dev: number }): FileKey {
  return `${s.size}:${s.mtimeMs}:${s.ino}:${s.dev}`;
}

function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The rename itself on disk too (a folder cannot be opened for that on Windows: skipped). */
export async function syncFolder(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not supported here; the file's own data is on disk already.
  }
}

const CRC_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** zlib's crc32, looked up on first use (null: a Node without it). */
let zlibCrc32: typeof ZlibCrc32 | null | undefined;

/** CRC-32 (zlib's where Node has it: 20.15+, 22.2+). */
export function crc32(buf: Uint8Array, previous = 0): number {
  if (zlibCrc32 === undefined) {
    const native = process.getBuiltinModule('node:zlib').crc32;
    zlibCrc32 = typeof native === 'function' ? native : null;
  }
  if (zlibCrc32) return zlibCrc32(buf, previous);
  let c = ~previous;
  for (let i = 0; i < buf.length; i++) c = CRC_TABLE[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

// ---- records ------------------------------------------------------------------------
//
// body (at the head's offset): u32 state JSON length, state JSON, usage block, copies block:
//   u32 n; u8 key encoding (0 utf8, 1 utf16le), 3 bytes 0; u32 key bytes, keys;
//   u32 × n key ends; u32 models JSON length, models JSON; u32 × n model indexes;
//   u32 agent ids JSON length (0: none), JSON; f64 × 7n numbers.
// head: u32 length (after this field)
//   u32 meta length, meta: JSON {p, s, m, i, d, f, b, r?} (path, size, mtime, inode,
//     device, the file summary without records, body [offset, length, crc32], row:
//     {t: [input, output, cacheRead, cacheWrite, cost or null] or null, g: group})
//   u32 tail length, tail bytes
//   u32 n, u32 × n sorted key hashes (the row's; 0 without a row)

interface MetaJson {
  p: string;
  s: number;
  m: number;
  i: number;
  d: number;
  f: SummaryJson;
  b: [number, number, number];
  r?: RowJson;
  /** A subagent's meta file as read (see RestingFile.meta). */
  a?: MetaRead;
}

/** A FileSummary without its records; NaN times as null. */
type SummaryJson = Omit<FileSummary, 'usage' | 'copies' | 'firstMs' | 'lastMs'> & {
  firstMs: number | null;
  lastMs: number | null;
};

interface RowJson {
  /** input, output, cacheRead, cacheWrite, cost (null: unknown); null: not counted. */
  t: [number, number, number, number, number | null] | null;
  g: number;
}

/** A state with its bytes as base64 (JSON cannot hold bytes). */
type StateJson = Omit<ScannerState, 'base'> & {
  base: Omit<BaseScannerState, 'pending' | 'pretty'> & {
    pending64?: string;
    pretty64?: Omit<NonNullable<BaseScannerState['pretty']>, 'parts'> & { parts: string[] };
  };
};

/** `n` as 4 little-endian bytes (the index's and the saved rows' lengths). */
export function u32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32LE(n, 0);
  return b;
}

/** The bytes of a typed array, not copied. */
export function bytesOf(a: ArrayBufferView): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

function base64(a: Uint8Array): string {
  return bytesOf(a).toString('base64');
}

/**
 * A file's state and records as buffers (a saved file's as they were read); undefined
 * when it is not worth saving (see MAX_PENDING_BYTES).
 */
function encodeBody(f: RestingFile): Buffer[] | undefined {
  if (f.body) {
    try {
      return [f.body.raw()];
    } catch {
      // Damaged or gone: left out (the file is scanned again by the next window).
      return undefined;
    }
  }
  const { pending, pretty, ...base } = f.state.base;
  const pendingBytes = (pending?.length ?? 0) + (pretty?.bytes ?? 0);
  if (pendingBytes > MAX_PENDING_BYTES) return undefined;
  const b: StateJson['base'] = { ...base };
  if (pending && pending.length > 0) b.pending64 = base64(pending);
  if (pretty) b.pretty64 = { ...pretty, parts: pretty.parts.map(base64) };
  const state = Buffer.from(JSON.stringify({ ...f.state, base: b }));
  return [u32(state.length), state, ...encodeUsage(f.usage), ...encodeUsage(f.copies)];
}

function encodeHead(
  f: RestingFile,
  row: SavedRow | undefined,
  bodyAt: number,
  bodyBytes: number,
  crc: number,
): Buffer {
  const summary = f.summary ?? resumeScanner(f.path, f.state, new Map(), new Map()).summary();
  // Everything but the records (JSON.stringify leaves undefined values out).
  const rest = { ...summary, usage: undefined, copies: undefined };
  const meta: MetaJson = {
    p: f.path,
    s: f.size,
    m: f.mtimeMs,
    i: f.ino,
    d: f.dev,
    f: rest as unknown as SummaryJson,
    b: [bodyAt, bodyBytes, crc],
  };
  if (f.meta) meta.a = f.meta;
  if (row) {
    const t = row.totals;
    meta.r = {
      t: t ? [t.input, t.output, t.cacheRead, t.cacheWrite, t.cost ?? null] : null,
      g: row.group,
    };
  }
  const metaBytes = Buffer.from(JSON.stringify(meta));
  const hashes = row?.hashes ?? new Uint32Array(0);
  const parts = [
    u32(metaBytes.length),
    metaBytes,
    u32(f.tail.length),
    bytesOf(f.tail),
    u32(hashes.length),
    bytesOf(hashes),
  ];
  const length = parts.reduce((n, p) => n + p.length, 0);
  return Buffer.concat([u32(length), ...parts], length + 4);
}

function encodeUsage(records: ReadonlyMap<string, UsageRecord>): Buffer[] {
  if (records.size === 0) return [u32(0)];
  const p = packUsage(records);
  const utf8 = p.keys.isWellFormed();
  const keys = Buffer.from(p.keys, utf8 ? 'utf8' : 'utf16le');
  const encoding = Buffer.alloc(4);
  encoding[0] = utf8 ? 0 : 1;
  const models = Buffer.from(JSON.stringify(p.models));
  const agentIds = p.agentIds ? Buffer.from(JSON.stringify(p.agentIds)) : Buffer.alloc(0);
  return [
    u32(p.keyEnds.length),
    encoding,
    u32(keys.length),
    keys,
    bytesOf(p.keyEnds),
    u32(models.length),
    models,
    bytesOf(p.model),
    u32(agentIds.length),
    agentIds,
    bytesOf(p.numbers),
  ];
}

/** Reads what encodeBody and encodeHead wrote, checking every length against the record's end. */
class Reader {
  private readonly buf: Buffer;
  at: number;
  private readonly end: number;

  constructor(buf: Buffer, at: number, end: number) {
    this.buf = buf;
    this.at = at;
    this.end = end;
  }

  private take(n: number): number {
    if (!Number.isInteger(n) || n < 0 || this.at + n > this.end) {
      throw new IndexProblem(`a record runs past its end at byte ${this.at}`);
    }
    const at = this.at;
    this.at += n;
    return at;
  }

  u32(): number {
    return this.buf.readUInt32LE(this.take(4));
  }

  bytes(n: number): Buffer {
    const at = this.take(n);
    return this.buf.subarray(at, at + n);
  }

  /** A copy, aligned for a typed array. */
  array<T extends Uint32Array | Float64Array>(make: (n: number) => T, n: number): T {
    const out = make(n);
    const from = this.bytes(out.byteLength);
    new Uint8Array(out.buffer).set(from);
    return out;
  }

  json(n: number): unknown {
    return JSON.parse(this.buf.toString('utf8', this.take(n), this.at));
  }

  done(): boolean {
    return this.at === this.end;
  }
}

/** A usage block's records, into `into`. */
function decodeUsage(r: Reader, into: LazyMap): void {
  const n = r.u32();
  if (n === 0) return;
  const encoding = r.bytes(4)[0];
  const keys = r.bytes(r.u32()).toString(encoding === 1 ? 'utf16le' : 'utf8');
  const keyEnds = r.array((k) => new Uint32Array(k), n);
  const models = r.json(r.u32());
  const model = r.array((k) => new Uint32Array(k), n);
  const idsBytes = r.u32();
  const agentIds = idsBytes > 0 ? r.json(idsBytes) : undefined;
  const numbers = r.array((k) => new Float64Array(k), n * NUMBERS);
  if (!Array.isArray(models) || models.some((m) => typeof m !== 'string')) {
    throw new IndexProblem('a record names its models wrongly');
  }
  for (let i = 0; i < n; i++) {
    if (model[i]! >= models.length) throw new IndexProblem('a record names a missing model');
    if (keyEnds[i]! > keys.length || (i > 0 && keyEnds[i]! < keyEnds[i - 1]!)) {
      throw new IndexProblem('a record has bad key lengths');
    }
  }
  if (agentIds !== undefined && (!Array.isArray(agentIds) || agentIds.length !== n)) {
    throw new IndexProblem('a record has bad agent ids');
  }
  const packed: PackedUsage = { keys, keyEnds, models: models as string[], model, numbers };
  if (agentIds) packed.agentIds = agentIds as (string | null)[];
  for (const [key, record] of unpackUsage(packed)) into.put(key, record);
}

/** A saved subagent meta read: its fields, strings (see ScanCache.readMeta). */
function decodeMetaRead(json: unknown): MetaRead {
  const meta = (json as MetaRead | null)?.meta as Record<string, unknown> | undefined;
  if (
    typeof json !== 'object' ||
    json === null ||
    Object.keys(json).join() !== 'meta' ||
    typeof meta !== 'object' ||
    meta === null ||
    !Object.values(meta).every((v) => typeof v === 'string')
  ) {
    throw new IndexProblem('a record has bad subagent metadata');
  }
  return { meta };
}

function decodeRow(json: unknown): RowJson | undefined {
  if (json === undefined) return undefined;
  const row = json as RowJson;
  const t = row?.t;
  if (
    !row ||
    typeof row.g !== 'number' ||
    (t !== null &&
      (!Array.isArray(t) ||
        t.length !== 5 ||
        t.some((v, i) => !(typeof v === 'number' || (i === 4 && v === null)))))
  ) {
    throw new IndexProblem('a record has a bad row');
  }
  return row;
}

function fromBase64(text: unknown): Uint8Array {
  if (typeof text !== 'string') throw new IndexProblem('a record holds bad bytes');
  return Buffer.from(text, 'base64');
}

function decodeState(json: StateJson): ScannerState {
  if (
    !json ||
    typeof json !== 'object' ||
    (json.harness !== 'claude-code' && json.harness !== 'codex')
  ) {
    throw new IndexProblem('a record has no scanner state');
  }
  const b = json.base;
  if (
    !b ||
    typeof b.lines !== 'number' ||
    typeof b.bytes !== 'number' ||
    !Array.isArray(b.problems) ||
    !Array.isArray(b.counted) ||
    !json.last ||
    !Array.isArray(json.last.pendingTools) ||
    !Array.isArray(json.models)
  ) {
    throw new IndexProblem('a record has an incomplete scanner state');
  }
  const { pending64, pretty64, ...rest } = b;
  const base: BaseScannerState = rest;
  if (pending64 !== undefined) base.pending = fromBase64(pending64);
  if (pretty64 !== undefined) base.pretty = { ...pretty64, parts: pretty64.parts.map(fromBase64) };
  return { ...json, base } as ScannerState;
}

function decodeSummary(json: SummaryJson | undefined, path: string): FileSummary {
  if (
    !json ||
    typeof json !== 'object' ||
    json.path !== path ||
    (json.harness !== 'claude-code' && json.harness !== 'codex') ||
    (json.role !== 'session' && json.role !== 'subagent') ||
    !Array.isArray(json.models) ||
    !Array.isArray(json.subagents) ||
    !Array.isArray(json.problems) ||
    !json.last ||
    !Array.isArray(json.last.pendingTools) ||
    typeof json.lines !== 'number' ||
    typeof json.bytes !== 'number'
  ) {
    throw new IndexProblem('a record has no file summary');
  }
  const summary = json as unknown as FileSummary;
  summary.firstMs = orNaN(json.firstMs);
  summary.lastMs = orNaN(json.lastMs);
  return summary;
}

function decodeHead(r: Reader, source: BodySource, bodyEnd: number, rows: boolean): SavedFile {
  const meta = r.json(r.u32()) as MetaJson;
  if (
    !meta ||
    typeof meta.p !== 'string' ||
    typeof meta.s !== 'number' ||
    typeof meta.m !== 'number' ||
    typeof meta.i !== 'number' ||
    typeof meta.d !== 'number' ||
    !Array.isArray(meta.b) ||
    meta.b.length !== 3 ||
    !meta.b.every((n) => Number.isInteger(n) && n >= 0) ||
    meta.b[0] < HEADER_BYTES ||
    meta.b[0] + meta.b[1] > bodyEnd
  ) {
    throw new IndexProblem('a record has no cache key');
  }
  const summary = decodeSummary(meta.f, meta.p);
  if (summary.bytes !== meta.s) throw new IndexProblem('a record disagrees with its size');
  const row = decodeRow(meta.r);
  // A copy (the heads' buffer is not kept), as the Buffer the scan cache keeps.
  const tail = Buffer.from(r.bytes(r.u32()));
  const hashes = r.array((k) => new Uint32Array(k), r.u32());
  const body = new SavedBody(source, meta.b[0], meta.b[1], meta.b[2]);
  summary.usage = body.usage;
  summary.copies = body.copies;
  const file = new SavedFile(meta, tail, summary, body);
  if (meta.a !== undefined) file.meta = decodeMetaRead(meta.a);
  if (row && rows) {
    const t = row.t;
    const totals: RowTotals | undefined = t
      ? { input: t[0], output: t[1], cacheRead: t[2], cacheWrite: t[3], cost: t[4] ?? undefined }
      : undefined;
    file.row = { totals, group: row.g, hashes };
  }
  return file;
}

/**
 * The entries of an index file, after checking its header and heads (summaries, rows,
 * cache keys) whole; each entry's body (state, records) is checked when it is read.
 * Throws IndexProblem.
 */
export function decodeIndex(
  source: BodySource,
  scanner: string,
  roots: string,
  pricing = '',
): Map<string, RestingFile> {
  const size = source.size();
  if (size < HEADER_BYTES) throw new IndexProblem('too short');
  const buf = source.read(0, HEADER_BYTES);
  if (!buf.subarray(0, 8).equals(MAGIC)) throw new IndexProblem('not an index file');
  const format = buf.readUInt32LE(8);
  if (format !== INDEX_FORMAT_VERSION) {
    throw new IndexProblem(`format ${format}, this version reads ${INDEX_FORMAT_VERSION}`);
  }
  const headerBytes = buf.readUInt32LE(12);
  if (16 + headerBytes > HEADER_BYTES) throw new IndexProblem('bad header length');
  let header: {
    scanner?: unknown;
    roots?: unknown;
    pricing?: unknown;
    entries?: unknown;
    headAt?: unknown;
    headBytes?: unknown;
    headCrc?: unknown;
  };
  try {
    header = JSON.parse(buf.toString('utf8', 16, 16 + headerBytes)) as typeof header;
  } catch {
    throw new IndexProblem('unreadable header');
  }
  if (header.scanner !== scanner) {
    throw new IndexProblem(`written by scanner ${String(header.scanner)}, this is ${scanner}`);
  }
  if (header.roots !== roots) throw new IndexProblem('written for other folders');
  const { headAt, headBytes } = header;
  if (
    typeof headAt !== 'number' ||
    typeof headBytes !== 'number' ||
    headAt < HEADER_BYTES ||
    headAt + headBytes !== size
  ) {
    throw new IndexProblem(
      `${size} bytes where ${String(headAt)} + ${String(headBytes)} were written`,
    );
  }
  const heads = source.read(headAt, headBytes);
  if (crc32(heads) !== header.headCrc) throw new IndexProblem('checksum mismatch');
  // Rows whose costs other prices made are left out (the sessions are aggregated again).
  const rows = header.pricing === pricing;
  const entries = new Map<string, RestingFile>();
  const all = new Reader(heads, 0, heads.length);
  while (!all.done()) {
    const length = all.u32();
    const start = all.at;
    all.bytes(length);
    const r = new Reader(heads, start, start + length);
    const entry = decodeHead(r, source, headAt, rows);
    if (!r.done()) throw new IndexProblem('a record has bytes left over');
    entries.set(entry.path, entry);
  }
  if (entries.size !== header.entries) {
    throw new IndexProblem(`${entries.size} records where ${String(header.entries)} were written`);
  }
  return entries;
}
