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
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, stat, unlink } from 'node:fs/promises';
import { endianness } from 'node:os';
import { join } from 'node:path';
import * as zlib from 'node:zlib';
import type { RowMemo, RowTotals } from './aggregate.ts';
import { IndexLock, type IndexLockOptions } from './indexLock.ts';
import { packUsage, unpackUsage, type PackedUsage } from './engine/packedUsage.ts';
import type { RestingFile } from './scanCache.ts';
import { SCANNER_STATE_VERSION, type BaseScannerState, type ScannerState } from './scannerState.ts';
import type { UsageRecord } from './types.ts';

/** The layout below; bump on any change to it. */
export const INDEX_FORMAT_VERSION = 2;
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

/**
 * A file's usage records and agent_progress copies as the index holds them, decoded on
 * first read: a window that opens needs the rows' sums (saved) and not the records.
 */
export class LazyUsage {
  private region: Buffer | undefined;
  private value: { usage: Map<string, UsageRecord>; copies: Map<string, UsageRecord> } | undefined;

  constructor(region: Buffer) {
    this.region = region;
  }

  get decoded(): boolean {
    return this.value !== undefined;
  }

  /** The two blocks as saved (while not decoded: a save copies them as they are). */
  get bytes(): Buffer | undefined {
    return this.region;
  }

  records(): { usage: Map<string, UsageRecord>; copies: Map<string, UsageRecord> } {
    if (!this.value) {
      const region = this.region!;
      const r = new Reader(region, 0, region.length);
      const usage = decodeUsage(r);
      const copies = decodeUsage(r);
      if (!r.done()) throw new IndexProblem('a record has bytes left over');
      this.value = { usage, copies };
      // The index buffer it was a view of can go once every entry is decoded.
      this.region = undefined;
    }
    return this.value;
  }
}

/** `file` with `usage` and `copies` read from `lazy` when first read. */
export function withLazyRecords<T extends object>(
  file: T,
  lazy: LazyUsage,
): T & { usage: ReadonlyMap<string, UsageRecord>; copies: ReadonlyMap<string, UsageRecord> } {
  return Object.defineProperties(file, {
    usage: { enumerable: true, configurable: true, get: () => lazy.records().usage },
    copies: { enumerable: true, configurable: true, get: () => lazy.records().copies },
  }) as T & {
    usage: ReadonlyMap<string, UsageRecord>;
    copies: ReadonlyMap<string, UsageRecord>;
  };
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

  /**
   * `roots`: the transcript folders this index is for (one index per set). `pricing`:
   * what the rows' costs depend on (the price data's version and any overrides).
   */
  constructor(options: PersistOptions, roots: readonly string[], pricing = '') {
    this.options = options;
    this.pricing = pricing;
    this.roots = [...roots].sort().join('\n');
    this.scanner = `${SCANNER_STATE_VERSION}/${options.version}`;
    const key = createHash('sha256').update(this.roots).digest('hex').slice(0, 16);
    this.file = join(options.dir, `local-${key}.idx`);
    this.lock = new IndexLock(join(options.dir, `local-${key}.lock`), options.lock);
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
    try {
      const entries = decodeIndex(
        await readFile(this.file),
        this.scanner,
        this.roots,
        this.pricing,
      );
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
      this.stats.loadMs += performance.now() - started;
    }
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
    const tmp = `${this.file}.${process.pid}.${randomUUID().slice(0, 8)}.tmp`;
    const handle = await open(tmp, 'wx');
    let renamed = false;
    try {
      const sum = new Checksum();
      let position = HEADER_BYTES;
      let group: Buffer[] = [];
      let groupBytes = 0;
      const flush = async () => {
        if (groupBytes === 0) return;
        const chunk = Buffer.concat(group, groupBytes);
        sum.update(chunk);
        await handle.write(chunk, 0, chunk.length, position);
        position += chunk.length;
        group = [];
        groupBytes = 0;
      };
      let written = 0;
      let evicted = 0;
      for (const f of ordered) {
        const record = encodeRecord(f, rowOf(f));
        if (!record) continue;
        const bytes = record.reduce((n, b) => n + b.length, 0);
        if (position + groupBytes + bytes > maxBytes) {
          evicted = ordered.length - written;
          break;
        }
        group.push(...record);
        groupBytes += bytes;
        written++;
        if (groupBytes >= WRITE_GROUP_BYTES) await flush();
      }
      await flush();
      const header = Buffer.from(
        JSON.stringify({
          scanner: this.scanner,
          roots: this.roots,
          pricing: this.pricing,
          entries: written,
          bodyBytes: position - HEADER_BYTES,
          checksum: sum.digest(),
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
      await handle.sync();
      await handle.close();
      await renameOver(tmp, this.file);
      renamed = true;
      await syncFolder(this.options.dir);
      this.known = fileKey(await stat(this.file));
      this.stats.saves++;
      this.stats.savedEntries = written;
      this.stats.savedBytes = position;
      this.stats.evicted = evicted;
    } finally {
      if (!renamed) {
        await handle.close().catch(() => undefined);
        await unlink(tmp).catch(() => undefined);
      }
    }
  }

  /**
   * Temporary files of writers that died mid-write (their process is gone, or long ago),
   * and the indexes of other folders that no window wrote for 30 days.
   */
  private async removeOrphans(): Promise<void> {
    const dir = this.options.dir;
    const own = this.file.slice(dir.length + 1);
    const prefix = `${own}.`;
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      if (name !== own && /^local-[0-9a-f]{16}\.idx$/.test(name)) {
        const path = join(dir, name);
        const unused = await stat(path).then(
          (s) => Date.now() - s.mtimeMs > UNUSED_INDEX_MS,
          () => false,
        );
        if (unused) await unlink(path).catch(() => undefined);
        continue;
      }
      if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
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
 * rename, tried again a few times when the target is busy (Windows refuses to replace a
 * file another window is reading at that moment).
 */
async function renameOver(from: string, to: string): Promise<void> {
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
async function syncFolder(dir: string): Promise<void> {
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

/** CRC-32 where zlib has it (Node 20.15+, 22.2+), else SHA-1; named in the header. */
class Checksum {
  private crc = 0;
  private readonly hash = typeof zlib.crc32 === 'function' ? undefined : createHash('sha1');

  update(buf: Buffer): void {
    if (this.hash) this.hash.update(buf);
    else this.crc = zlib.crc32(buf, this.crc);
  }

  digest(): string {
    return this.hash ? `sha1:${this.hash.digest('hex')}` : `crc32:${this.crc.toString(16)}`;
  }
}

function checksumOf(buf: Buffer, algorithm: string): string {
  if (algorithm === 'crc32' && typeof zlib.crc32 === 'function') {
    return `crc32:${zlib.crc32(buf).toString(16)}`;
  }
  if (algorithm === 'sha1') return `sha1:${createHash('sha1').update(buf).digest('hex')}`;
  throw new IndexProblem(`checksum ${algorithm} not available`);
}

// ---- records ------------------------------------------------------------------------
//
// u32 record length (after this field)
// u32 meta length, meta: JSON {p, s, m, i, d, st, r?} (path, size, mtime, inode, device,
//   state, row: {t: [input, output, cacheRead, cacheWrite, cost or null] or null, g: group})
// u32 tail length, tail bytes
// u32 n, u32 × n sorted key hashes (the row's; 0 without a row)
// u32 bytes of the two blocks, usage block, copies block:
//   u32 n; u8 key encoding (0 utf8, 1 utf16le), 3 bytes 0; u32 key bytes, keys;
//   u32 × n key ends; u32 models JSON length, models JSON; u32 × n model indexes;
//   u32 agent ids JSON length (0: none), JSON; f64 × 7n numbers.

interface MetaJson {
  p: string;
  s: number;
  m: number;
  i: number;
  d: number;
  st: StateJson;
  r?: RowJson;
}

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

function u32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32LE(n, 0);
  return b;
}

function bytesOf(a: ArrayBufferView): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

function base64(a: Uint8Array): string {
  return bytesOf(a).toString('base64');
}

/** One file's record as buffers; undefined when it is not worth saving (see MAX_PENDING_BYTES). */
function encodeRecord(f: RestingFile, row: SavedRow | undefined): Buffer[] | undefined {
  const { pending, pretty, ...base } = f.state.base;
  const pendingBytes = (pending?.length ?? 0) + (pretty?.bytes ?? 0);
  if (pendingBytes > MAX_PENDING_BYTES) return undefined;
  const b: StateJson['base'] = { ...base };
  if (pending && pending.length > 0) b.pending64 = base64(pending);
  if (pretty) b.pretty64 = { ...pretty, parts: pretty.parts.map(base64) };
  const meta: MetaJson = {
    p: f.path,
    s: f.size,
    m: f.mtimeMs,
    i: f.ino,
    d: f.dev,
    st: { ...f.state, base: b } as StateJson,
  };
  if (row) {
    const t = row.totals;
    meta.r = {
      t: t ? [t.input, t.output, t.cacheRead, t.cacheWrite, t.cost ?? null] : null,
      g: row.group,
    };
  }
  const metaBytes = Buffer.from(JSON.stringify(meta));
  // Records never decoded here are written as they were read.
  const saved = f.lazy && !f.lazy.decoded ? f.lazy.bytes : undefined;
  const blocks = saved ? [saved] : [...encodeUsage(f.usage), ...encodeUsage(f.copies)];
  const hashes = row?.hashes ?? new Uint32Array(0);
  const parts = [
    u32(metaBytes.length),
    metaBytes,
    u32(f.tail.length),
    bytesOf(f.tail),
    u32(hashes.length),
    bytesOf(hashes),
    u32(blocks.reduce((n, p) => n + p.length, 0)),
    ...blocks,
  ];
  const length = parts.reduce((n, p) => n + p.length, 0);
  return [u32(length), ...parts];
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

/** Reads what encodeRecord wrote, checking every length against the record's end. */
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

function decodeUsage(r: Reader): Map<string, UsageRecord> {
  const n = r.u32();
  if (n === 0) return new Map();
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
  return unpackUsage(packed);
}

/** Checks a usage block's lengths without decoding it (that is done when it is read). */
function skipUsage(r: Reader): void {
  const n = r.u32();
  if (n === 0) return;
  r.bytes(4);
  r.bytes(r.u32());
  const keyEnds = r.bytes(4 * n);
  for (let i = 1; i < n; i++) {
    if (keyEnds.readUInt32LE(4 * i) < keyEnds.readUInt32LE(4 * i - 4)) {
      throw new IndexProblem('a record has bad key lengths');
    }
  }
  r.bytes(r.u32());
  r.bytes(4 * n);
  r.bytes(r.u32());
  r.bytes(8 * NUMBERS * n);
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

function decodeRecord(r: Reader, rows: boolean): RestingFile {
  const meta = r.json(r.u32()) as MetaJson;
  if (
    !meta ||
    typeof meta.p !== 'string' ||
    typeof meta.s !== 'number' ||
    typeof meta.m !== 'number' ||
    typeof meta.i !== 'number' ||
    typeof meta.d !== 'number'
  ) {
    throw new IndexProblem('a record has no cache key');
  }
  const state = decodeState(meta.st);
  if (state.base.bytes !== meta.s) throw new IndexProblem('a record disagrees with its size');
  const row = decodeRow(meta.r);
  const tail = Uint8Array.from(r.bytes(r.u32()));
  const hashes = r.array((k) => new Uint32Array(k), r.u32());
  const regionBytes = r.u32();
  const region = r.bytes(regionBytes);
  const blocks = new Reader(region, 0, region.length);
  skipUsage(blocks);
  skipUsage(blocks);
  if (!blocks.done()) throw new IndexProblem('a record has bytes left over');
  const lazy = new LazyUsage(region);
  const file: Omit<RestingFile, 'usage' | 'copies'> = {
    path: meta.p,
    size: meta.s,
    mtimeMs: meta.m,
    ino: meta.i,
    dev: meta.d,
    tail,
    state,
    lazy,
  };
  if (row && rows) {
    const t = row.t;
    const totals: RowTotals | undefined = t
      ? { input: t[0], output: t[1], cacheRead: t[2], cacheWrite: t[3], cost: t[4] ?? undefined }
      : undefined;
    file.row = { totals, group: row.g, hashes };
  }
  return withLazyRecords(file, lazy);
}

/** The entries of an index file, after checking it whole; throws IndexProblem. */
export function decodeIndex(
  buf: Buffer,
  scanner: string,
  roots: string,
  pricing = '',
): Map<string, RestingFile> {
  if (buf.length < HEADER_BYTES || !buf.subarray(0, 8).equals(MAGIC)) {
    throw new IndexProblem(buf.length < HEADER_BYTES ? 'too short' : 'not an index file');
  }
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
    bodyBytes?: unknown;
    checksum?: unknown;
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
  const body = buf.subarray(HEADER_BYTES);
  if (header.bodyBytes !== body.length) {
    throw new IndexProblem(
      `${body.length} bytes of records where ${String(header.bodyBytes)} were written`,
    );
  }
  const checksum = typeof header.checksum === 'string' ? header.checksum : '';
  if (checksumOf(body, checksum.split(':')[0] ?? '') !== checksum) {
    throw new IndexProblem('checksum mismatch');
  }
  // Rows whose costs other prices made are left out (the sessions are aggregated again).
  const rows = header.pricing === pricing;
  const entries = new Map<string, RestingFile>();
  const all = new Reader(buf, HEADER_BYTES, buf.length);
  while (!all.done()) {
    const length = all.u32();
    const start = all.at;
    all.bytes(length);
    const r = new Reader(buf, start, start + length);
    const entry = decodeRecord(r, rows);
    if (!r.done()) throw new IndexProblem('a record has bytes left over');
    entries.set(entry.path, entry);
  }
  if (entries.size !== header.entries) {
    throw new IndexProblem(`${entries.size} records where ${String(header.entries)} were written`);
  }
  return entries;
}
