/**
 * Per-file scan results keyed by path, size, mtime and inode. Transcripts only grow, so a
 * file that got longer is read from where the last read stopped, by the same scanner
 * (which keeps its parser state and any unfinished last line), or by one resumed from the
 * state a scan helper or the persisted index (persistedIndex.ts) saved; a file that
 * shrank, was replaced or rewritten in place is read again from the start. Counters say
 * how many bytes were read, so tests can check that a refresh reads only what was appended.
 */
import { readFileSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { BlockingSlices } from '../../util/blockingSlices.ts';
import { mapLimited } from '../../util/mapLimited.ts';
import {
  isBlocking,
  openBlocking,
  type BlockingHandle,
  type ReadHandle,
} from './engine/blockingFile.ts';
import type { DiscoveredFile } from './discovery.ts';
import {
  PARALLEL_MIN_BYTES,
  ScanWorker,
  splitForThreads,
  workerCount,
  type ScanHelpers,
  type ScannedElsewhere,
} from './engine/parallelScan.ts';
import { unpackUsage } from './engine/packedUsage.ts';
import { newScanner, resumeScanner, type Scanner } from './scanners.ts';
import { IndexProblem, type RestingFile, type SavedBody } from './persistedIndex.ts';
import type { ScannerState } from './scannerState.ts';
import type { FileSummary, MetaRead, SubagentMeta, UsageRecord } from './types.ts';

export interface ScanStats {
  /** Bytes read from transcript files. */
  bytesRead: number;
  /** Files read from the start. */
  fullScans: number;
  /** Files read from their previous end only. */
  appendScans: number;
  /** Files whose cached result was reused without reading. */
  reused: number;
  /** Files known from the persisted index (seed), whether reused or continued since. */
  seeded: number;
  /** Bytes re-read to check that a grown file still starts as before (not in bytesRead). */
  checkBytes: number;
  /** Bytes of files' ends read again for their status (see replayStatus; not in bytesRead). */
  statusBytes: number;
  /** Subagent meta files read (a window that opens from the index has them saved). */
  metaReads: number;
  /** Files read by helpers, threads or processes (also counted in fullScans and bytesRead). */
  workerScans: number;
  /** Helpers started (early or for a scan). */
  workersStarted: number;
  /**
   * With helper processes: the sum of their peak resident memory in the last scan that
   * used them (KiB; an upper bound of what they held at once). 0 with threads.
   */
  helperPeakRssKb: number;
}

export interface ScanCacheOptions {
  /**
   * The worker script (dist/scanWorker.cjs, or src/sources/local/engine/scanWorker.ts unbundled)
   * for cold scans in parallel; without it everything is read on this thread.
   */
  scanWorker?: string | URL;
  /** Whether helpers are worker threads (default) or child processes (see ScanHelpers). */
  helpers?: ScanHelpers;
  /** A helper failed: the files it had not sent back are read on this thread instead. */
  onHelperFailure?: (error: Error) => void;
  /** Helpers besides this thread (default: see workerCount). */
  workers?: number;
  /**
   * Cores other work leaves idle, asked when helper threads are counted (default: the
   * cores less the one-minute load average; see workerCount and idleCoresNow).
   */
  idleCores?: () => number;
  /** Bytes of unknown files below which no worker is started (default PARALLEL_MIN_BYTES). */
  parallelMinBytes?: number;
  /**
   * Whether this thread also takes from the workers' queue once its own files are done
   * (default: with threads, not with processes). Tests turn it off so that small scans
   * still reach a worker.
   */
  helpWorkers?: boolean;
  /**
   * Read files with blocking calls (engine/blockingFile.ts): for a thread that does
   * nothing else meanwhile (a scan helper, the usage-report CLI), not the extension host.
   */
  blockingReads?: boolean;
  /**
   * Whether sessions' statuses are wanted (default true). False for a count of usage only
   * (the usage-report CLI): a read from the start then skips the status work
   * (LineScanner.skipStatus), here and in the helpers.
   */
  status?: boolean;
  /**
   * The files are read once and never refreshed (the usage-report CLI's own cache, not a
   * helper's, which hands its scanners' states over): no scanner is kept for appends.
   */
  readOnce?: boolean;
  /**
   * Start helpers only once the listing shows enough bytes (startWorkers does nothing):
   * for a parallelMinBytes most scans stay below, where a helper started early would
   * only be stopped again, its start-up and memory spent.
   */
  lateWorkers?: boolean;
}

/** A meta read slower than this is not from the page cache (see BlockingSlices). */
const SLOW_META_MS = 1;

interface Entry {
  /**
   * Undefined for a file scanned by a helper or known from the persisted index: its
   * first append resumes a scanner from `state`.
   */
  scanner: Scanner | undefined;
  /** The scanner's state at rest, when there is no scanner (see scannerState.ts). */
  state: ScannerState | undefined;
  size: number;
  mtimeMs: number;
  ino: number;
  dev: number;
  summary: FileSummary;
  /** An open or read failure: the file is retried on the next refresh. */
  failed: boolean;
  /** The last bytes read (up to TAIL_BYTES): an append must leave them unchanged. */
  tail: Buffer;
  /** Seeded from the index: its state and records as saved, read on first use. */
  body?: SavedBody;
}

const CHUNK_BYTES = 1 << 20;
/** Bytes compared before reading an append (a file rewritten in place fails the check). */
const TAIL_BYTES = 64;
/** Files read at once: overlaps I/O with parsing without flooding a small machine. */
const CONCURRENCY = 3;

export class ScanCache {
  readonly stats: ScanStats = {
    bytesRead: 0,
    fullScans: 0,
    appendScans: 0,
    reused: 0,
    seeded: 0,
    checkBytes: 0,
    statusBytes: 0,
    metaReads: 0,
    workerScans: 0,
    workersStarted: 0,
    helperPeakRssKb: 0,
  };
  private readonly options: ScanCacheOptions;

  constructor(options: ScanCacheOptions = {}) {
    this.options = options;
  }
  private readonly entries = new Map<string, Entry>();
  private readonly metas = new Map<string, MetaRead & { size: number; mtimeMs: number }>();
  private readonly buffers: Buffer[] = [];
  private readonly blockingBuffers: Buffer[] = [];
  private readonly inflight = new Map<string, Promise<FileSummary>>();
  /** Whether scanAll ran (startWorkers is for the first scan only). */
  private scannedOnce = false;
  /** Counts changes to the entries: the persisted index saves when it moved. */
  changes = 0;
  /** Workers started by startWorkers and not yet given work. */
  private readonly started: ScanWorker[] = [];

  /** Summaries of `files`, in order. Never throws for I/O: failures become problems. */
  async scanAll(files: readonly DiscoveredFile[], signal?: AbortSignal): Promise<FileSummary[]> {
    this.scannedOnce = true;
    const elsewhere = await this.scanColdInWorkers(files);
    // Unchanged files first, without a promise each (most files at most refreshes).
    const summaries = new Array<FileSummary>(files.length);
    const toRead: number[] = [];
    files.forEach((f, i) => {
      const done =
        elsewhere.get(f.path) ?? (this.inflight.has(f.path) ? undefined : this.unchanged(f));
      if (done) summaries[i] = done;
      else toRead.push(i);
    });
    await mapLimited(toRead, CONCURRENCY, async (i) => {
      signal?.throwIfAborted();
      summaries[i] = await this.scan(files[i]!);
    });
    // Forget files that are gone.
    if (this.entries.size > files.length) {
      const live = new Set(files.map((f) => f.path));
      for (const path of this.entries.keys()) {
        if (!live.has(path)) {
          this.entries.delete(path);
          this.changes++;
        }
      }
    }
    return summaries;
  }

  /**
   * Starts workers for the files no entry knows yet, when there are enough bytes of them:
   * this thread scans the ones it keeps and then takes from the same queue as the workers
   * (parallelScan.ts). Files a failed worker did not return are left to scanAll.
   */
  private async scanColdInWorkers(
    files: readonly DiscoveredFile[],
  ): Promise<Map<string, FileSummary>> {
    const done = new Map<string, FileSummary>();
    const script = this.options.scanWorker;
    const workers = this.workers();
    const cold = files.filter((f) => !this.entries.has(f.path));
    const minBytes = this.options.parallelMinBytes ?? PARALLEL_MIN_BYTES;
    if (
      !script ||
      workers < 1 ||
      cold.length < 2 ||
      cold.reduce((n, f) => n + f.size, 0) < minBytes
    ) {
      this.stopWorkers();
      return done;
    }
    const threads = this.options.helpers !== 'processes';
    const help = this.options.helpWorkers ?? threads;
    const { here, queue } = splitForThreads(
      cold,
      Date.now(),
      threads,
      this.options.readOnce !== true,
    );
    const started = this.takeStartedWorkers();
    while (started.length < workers) started.push(this.newWorker(script));
    const peaks = started.map(() => 0);
    const running = started.map((w, i) =>
      w
        .run(queue, (scanned, bytesRead, peakRssKb) => {
          this.stats.bytesRead += bytesRead;
          peaks[i] = peakRssKb;
          for (const f of scanned) done.set(f.path, this.adopt(f));
        })
        .catch((error: Error) => this.options.onHelperFailure?.(error)),
    );
    const scanHere = async (f: DiscoveredFile) => done.set(f.path, await this.scan(f));
    await mapLimited(here, CONCURRENCY, scanHere);
    if (help) {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          for (let f = queue.take(); f; f = queue.take()) await scanHere(f);
        }),
      );
    }
    await Promise.all(running);
    if (!threads) this.stats.helperPeakRssKb = peaks.reduce((a, b) => a + b, 0);
    return done;
  }

  /**
   * Starts the scan workers of a first scan early, before the folders are listed (a
   * worker takes a while to start). Does nothing after the first scan, even of empty
   * folders: later scans read appends, and a refresh must not start a thread each time.
   * The next scanAll uses or stops them.
   */
  startWorkers(): void {
    const script = this.options.scanWorker;
    if (!script || this.scannedOnce || this.started.length > 0 || this.options.lateWorkers) return;
    const workers = this.workers();
    for (let i = 0; i < workers; i++) this.started.push(this.newWorker(script));
  }

  /**
   * Settles when the helpers startWorkers started are running their own code (or failed
   * to): a thread's start-up no longer depends on this process's V8 flags from then on.
   */
  helpersOnline(): Promise<void> {
    return Promise.all(this.started.map((w) => w.online)).then(() => undefined);
  }

  private workers(): number {
    return (
      this.options.workers ??
      workerCount(this.options.helpers, undefined, this.options.idleCores?.())
    );
  }

  private newWorker(script: string | URL): ScanWorker {
    this.stats.workersStarted++;
    const status = this.options.status;
    return new ScanWorker(script, this.options.helpers, status === false ? { status } : {});
  }

  /** Stops workers started early that no scan will use. */
  stopWorkers(): void {
    for (const w of this.takeStartedWorkers()) w.stop();
  }

  private takeStartedWorkers(): ScanWorker[] {
    return this.started.splice(0);
  }

  /**
   * What a helper learnt about a file, as an entry with the scanner's state (its first
   * append resumes from there); its summary.
   */
  private adopt(f: ScannedElsewhere): FileSummary {
    this.stats.fullScans++;
    this.stats.workerScans++;
    const usage = unpackUsage(f.usage);
    const copies = unpackUsage(f.copies);
    const summary: FileSummary =
      f.state && !f.failed
        ? resumeScanner(f.path, f.state, usage, copies).summary()
        : { ...f.failure!, usage, copies };
    this.entries.set(f.path, {
      scanner: undefined,
      state: f.failed ? undefined : f.state,
      size: f.size,
      mtimeMs: f.mtimeMs,
      ino: f.ino,
      dev: f.dev,
      summary,
      failed: f.failed,
      tail: Buffer.from(f.tail),
    });
    this.changes++;
    return summary;
  }

  /**
   * A file's cache key, tail and scanner state, for a helper to send back with its
   * summary's records (see parallelScan.ts). The entry leaves this cache: its scanner
   * and records are not needed here again, and a helper that kept them held every
   * record of its files until it ended.
   */
  takeEntry(path: string): Omit<ScannedElsewhere, 'usage' | 'copies'> | undefined {
    const e = this.entries.get(path);
    if (!e) return undefined;
    this.entries.delete(path);
    const { size, mtimeMs, ino, dev, failed, tail } = e;
    const taken: Omit<ScannedElsewhere, 'usage' | 'copies'> = {
      path,
      size,
      mtimeMs,
      ino,
      dev,
      failed,
      tail,
    };
    // (A failed read's records are empty.)
    if (failed) taken.failure = e.summary;
    else {
      const state = e.scanner?.saveState() ?? e.state ?? e.body?.state();
      if (state) taken.state = state;
    }
    return taken;
  }

  /**
   * Entries from the persisted index for listed files this cache does not know yet (or
   * failed to read): their next scan reuses them when the file is unchanged, or resumes
   * their scanner when it grew. An entry of another harness or role is ignored. Does
   * not count as a change (the index holds them already).
   */
  seed(files: readonly DiscoveredFile[], resting: ReadonlyMap<string, RestingFile>): string[] {
    const seeded: string[] = [];
    for (const file of files) {
      const r = resting.get(file.path);
      const known = this.entries.get(file.path);
      if (!r || (known && !known.failed) || this.inflight.has(file.path)) continue;
      // A saved file keeps its summary as saved; its state and records are read when needed.
      const summary =
        r.summary && r.body
          ? r.summary
          : resumeScanner(
              file.path,
              r.state,
              r.usage as Map<string, UsageRecord>,
              r.copies as Map<string, UsageRecord>,
            ).summary();
      if (summary.harness !== file.harness || summary.role !== file.role) continue;
      const entry: Entry = {
        scanner: undefined,
        state: r.body ? undefined : r.state,
        size: r.size,
        mtimeMs: r.mtimeMs,
        ino: r.ino,
        dev: r.dev,
        summary,
        failed: false,
        // A loaded entry's tail is a Buffer of its own already.
        tail: r.body && Buffer.isBuffer(r.tail) ? r.tail : Buffer.from(r.tail),
      };
      if (r.body) entry.body = r.body;
      this.entries.set(file.path, entry);
      seeded.push(file.path);
      if (r.meta && file.metaPath && !this.knownMeta(file.metaPath, r.size, r.mtimeMs)) {
        this.metas.set(file.metaPath, { ...r.meta, size: r.size, mtimeMs: r.mtimeMs });
      }
    }
    this.stats.seeded += seeded.length;
    return seeded;
  }

  /**
   * Drops entries seeded from an index and not read since (a newer index replaces them),
   * so that the next seed takes them from it.
   */
  unseed(paths: readonly string[]): void {
    for (const path of paths) {
      const e = this.entries.get(path);
      if (e && !e.scanner && !e.failed && !this.inflight.has(path)) {
        this.entries.delete(path);
        this.stats.seeded--;
      }
    }
  }

  /** The summary the cache holds for `path` (undefined: unknown or a failed read). */
  summaryOf(path: string): FileSummary | undefined {
    const e = this.entries.get(path);
    return e && !e.failed ? e.summary : undefined;
  }

  /** Whether an entry (not a failed read) is known for `path`. */
  knows(path: string): boolean {
    const e = this.entries.get(path);
    return e !== undefined && !e.failed;
  }

  /**
   * Every entry at rest, for the persisted index: not failed reads, not files being read
   * now. A scanner's state is saved here; records are the summary's (shared, not copied).
   */
  resting(): RestingFile[] {
    const out: RestingFile[] = [];
    for (const [path, e] of this.entries) {
      if (e.failed || this.inflight.has(path)) continue;
      const { size, mtimeMs, ino, dev, tail, summary } = e;
      const meta = summary.role === 'subagent' ? this.metaOf(path, size, mtimeMs) : undefined;
      // A saved file not read since is saved again as it was loaded.
      if (e.body && !e.scanner) {
        const body = e.body;
        out.push({
          path,
          size,
          mtimeMs,
          ino,
          dev,
          tail,
          summary,
          body,
          get state() {
            return body.state();
          },
          usage: summary.usage,
          copies: summary.copies,
          ...(meta && { meta }),
        });
        continue;
      }
      const state = e.scanner?.saveState() ?? e.state;
      if (!state || state.base.bytes !== e.size) continue;
      out.push({
        path,
        size,
        mtimeMs,
        ino,
        dev,
        tail,
        state,
        summary,
        usage: summary.usage,
        copies: summary.copies,
        ...(meta && { meta }),
      });
    }
    return out;
  }

  /** The cached meta of a subagent transcript (beside it, `agent-<id>.meta.json`). */
  private metaOf(path: string, size: number, mtimeMs: number): MetaRead | undefined {
    if (!path.endsWith('.jsonl')) return undefined;
    const known = this.knownMeta(`${path.slice(0, -'.jsonl'.length)}.meta.json`, size, mtimeMs);
    // Only what was read: a file that could not be is read again by the next window.
    return known?.meta ? { meta: known.meta } : undefined;
  }

  /**
   * One file's summary, reading only what changed since the last call. Calls for a file
   * already being read wait for that read (a scanner is never fed by two reads at once).
   */
  async scan(file: DiscoveredFile): Promise<FileSummary> {
    const running = this.inflight.get(file.path);
    if (running) {
      await running.catch(() => undefined);
      return this.scan(file);
    }
    const promise = this.scanOnce(file);
    this.inflight.set(file.path, promise);
    try {
      return await promise;
    } finally {
      this.inflight.delete(file.path);
    }
  }

  /** The cached summary of a file unchanged since it was read (counted as reused). */
  private unchanged(file: DiscoveredFile): FileSummary | undefined {
    const cached = this.entries.get(file.path);
    if (
      !cached ||
      cached.failed ||
      cached.ino !== file.ino ||
      cached.dev !== file.dev ||
      cached.size !== file.size ||
      cached.mtimeMs !== file.mtimeMs
    ) {
      return undefined;
    }
    this.stats.reused++;
    return cached.summary;
  }

  private async scanOnce(file: DiscoveredFile): Promise<FileSummary> {
    const reused = this.unchanged(file);
    if (reused) return reused;
    const cached = this.entries.get(file.path);
    let handle: ReadHandle | undefined;
    let entry: Entry | undefined;
    try {
      handle = this.options.blockingReads
        ? await openBlocking(file.path)
        : await open(file.path, 'r');
      const grown =
        (cached?.scanner !== undefined ||
          cached?.state !== undefined ||
          cached?.body !== undefined) &&
        !cached.failed &&
        cached.ino === file.ino &&
        cached.dev === file.dev &&
        file.size > cached.size &&
        (await this.sameTail(handle, cached));
      // A saved body that cannot be read (damaged index): read from the start instead.
      const resumed = grown ? (cached.scanner ?? resumeEntry(file.path, cached)) : undefined;
      const append = resumed !== undefined;
      const scanner = resumed ?? newScanner(file);
      const from = append ? cached!.size : 0;
      if (!append && this.options.status === false) scanner.skipStatus();
      else if (!append) scanner.deferStatus();
      if (append) this.stats.appendScans++;
      else this.stats.fullScans++;
      entry = {
        scanner,
        state: undefined,
        size: from,
        mtimeMs: file.mtimeMs,
        ino: file.ino,
        dev: file.dev,
        summary: cached?.summary ?? scanner.summary(),
        failed: false,
        tail: append ? cached!.tail : Buffer.alloc(0),
      };
      this.entries.set(file.path, entry);
      this.changes++;
      entry.size = await this.readFrom(handle, scanner, from, entry);
      // Read to the size the listing saw: the listing's mtime is the key (a later write
      // changes it). Otherwise the file changed since: the state after the read, so that
      // a write racing the read shows up as growth next time. (No fstat per file: on the
      // main thread, they add up over a cold scan.)
      if (entry.size !== file.size) {
        const after = await handle.stat();
        entry.mtimeMs = after.size === entry.size ? after.mtimeMs : file.mtimeMs;
      }
      scanner.finish();
      await this.replayStatus(handle, scanner, entry.size);
      entry.summary = scanner.summary();
      // Kept for appends, the scanner would only be promoted to the old generation and
      // traced there.
      if (this.options.readOnce) entry.scanner = undefined;
      return entry.summary;
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      const summary = newScanner(file).summary();
      summary.problems.push({
        kind: 'unreadable',
        path: file.path,
        message: `${file.path} could not be read: ${e.code ?? e.message}`,
      });
      this.changes++;
      this.entries.set(file.path, {
        ...(entry ?? { scanner: newScanner(file), tail: Buffer.alloc(0) }),
        state: undefined,
        size: 0,
        mtimeMs: file.mtimeMs,
        ino: file.ino,
        dev: file.dev,
        summary,
        failed: true,
      });
      return summary;
    } finally {
      await handle?.close().catch(() => undefined);
    }
  }

  /**
   * The second pass of a read from the start (LineScanner.statusReplay): the file's end
   * again, from where the last entry that resets the status ended, to `size`.
   */
  private async replayStatus(handle: ReadHandle, scanner: Scanner, size: number): Promise<void> {
    const replay = scanner.statusReplay();
    if (!replay) return;
    const buf = this.buffers.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
    try {
      for (let position = replay.from; position < size;) {
        const { bytesRead } = await handle.read(
          buf,
          0,
          Math.min(buf.length, size - position),
          position,
        );
        if (bytesRead === 0) break;
        this.stats.statusBytes += bytesRead;
        position += bytesRead;
        replay.scanner.feed(buf.subarray(0, bytesRead));
      }
    } finally {
      this.buffers.push(buf);
    }
    replay.scanner.finish();
    scanner.adoptStatus(replay.scanner);
  }

  /** Whether the bytes before the cached end are still the ones read last time. */
  private async sameTail(handle: ReadHandle, cached: Entry): Promise<boolean> {
    const n = cached.tail.length;
    if (n === 0) return cached.size === 0;
    const buf = Buffer.allocUnsafe(n);
    const { bytesRead } = await handle.read(buf, 0, n, cached.size - n);
    this.stats.checkBytes += bytesRead;
    return bytesRead === n && buf.equals(cached.tail);
  }

  /**
   * Feeds the scanner from `offset` to the end of the file; returns the new end. Two
   * buffers: the next chunk is being read while the current one is parsed.
   */
  private async readFrom(
    handle: ReadHandle,
    scanner: Scanner,
    offset: number,
    entry: Entry,
  ): Promise<number> {
    if (isBlocking(handle)) return this.readBlocking(handle, scanner, offset, entry);
    const a = this.buffers.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
    const b = this.buffers.pop() ?? Buffer.allocUnsafe(CHUNK_BYTES);
    let position = offset;
    let current = a;
    let spare = b;
    let reading = handle.read(current, 0, current.length, position);
    try {
      for (;;) {
        const { bytesRead } = await reading;
        if (bytesRead === 0) return position;
        position += bytesRead;
        // Only read ahead after a full chunk: a short read means the end is here.
        if (bytesRead === current.length) reading = handle.read(spare, 0, spare.length, position);
        else reading = Promise.resolve({ bytesRead: 0, buffer: spare });
        this.feedRead(scanner, entry, current, bytesRead);
        [current, spare] = [spare, current];
      }
    } finally {
      // Never hand out a buffer a read may still be filling.
      await reading.catch(() => undefined);
      this.buffers.push(a, b);
    }
  }

  /**
   * readFrom with blocking reads: nothing is read while a chunk is parsed, so one buffer of
   * the two's size, in which fewer long lines are cut by the end of a read (each cut one is
   * copied aside until its end arrives). Each read goes straight into the skim kernel's
   * memory where the scanner has room there (no copy), and is fed before anything else
   * runs: no other scan can read into that memory in between.
   */
  private readBlocking(
    handle: BlockingHandle,
    scanner: Scanner,
    offset: number,
    entry: Entry,
  ): number {
    const own = this.blockingBuffers.pop() ?? Buffer.allocUnsafe(2 * CHUNK_BYTES);
    let position = offset;
    try {
      for (;;) {
        const buf = scanner.readArea(own.length) ?? own;
        const bytesRead = handle.readNow(buf, 0, buf.length, position);
        if (bytesRead === 0) return position;
        position += bytesRead;
        this.feedRead(scanner, entry, buf, bytesRead);
        // A short read: the end is here.
        if (bytesRead < buf.length) return position;
      }
    } finally {
      this.blockingBuffers.push(own);
    }
  }

  /** The first `bytesRead` bytes of `buf`, just read: counted, scanned, their end kept as the tail. */
  private feedRead(scanner: Scanner, entry: Entry, buf: Buffer, bytesRead: number): void {
    this.stats.bytesRead += bytesRead;
    const chunk = bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
    scanner.feed(chunk);
    entry.tail = lastBytes(entry.tail, chunk);
  }

  /** readMeta's result when it is cached for this size and mtime (no promise). */
  knownMeta(path: string, size: number, mtimeMs: number): MetaRead | undefined {
    const cached = this.metas.get(path);
    return cached && cached.size === size && cached.mtimeMs === mtimeMs ? cached : undefined;
  }

  /** A subagent's meta file, cached by size and mtime; problems for unreadable JSON. */
  async readMeta(path: string, size: number, mtimeMs: number): Promise<MetaRead> {
    return (
      this.knownMeta(path, size, mtimeMs) ??
      this.keepMeta(path, size, mtimeMs, () => readFile(path, 'utf8'))
    );
  }

  /**
   * readMeta of each listed file's meta file, in order (undefined: none). Files not cached
   * are read with blocking calls in slices of a few ms (they are small: one thread-pool
   * round trip per slice instead of four per file), with promise calls once reads are
   * slow (a network disk).
   */
  async readMetas(files: readonly DiscoveredFile[]): Promise<(MetaRead | undefined)[]> {
    const out = new Array<MetaRead | undefined>(files.length);
    const slices = new BlockingSlices();
    for (let i = 0; i < files.length; i++) {
      const { metaPath, size, mtimeMs } = files[i]!;
      if (!metaPath) continue;
      const known = this.knownMeta(metaPath, size, mtimeMs);
      if (known) {
        out[i] = known;
        continue;
      }
      if (slices.slow) {
        out[i] = await this.readMeta(metaPath, size, mtimeMs);
        continue;
      }
      await slices.pause();
      out[i] = await this.keepMeta(metaPath, size, mtimeMs, () =>
        slices.run(
          () => readFileSync(metaPath, 'utf8'),
          () => SLOW_META_MS,
        ),
      );
    }
    return out;
  }

  /** Reads (with `read`), parses and caches one meta file; never throws. */
  private async keepMeta(
    path: string,
    size: number,
    mtimeMs: number,
    read: () => string | Promise<string>,
  ): Promise<MetaRead> {
    const result: MetaRead & { size: number; mtimeMs: number } = { size, mtimeMs };
    this.stats.metaReads++;
    try {
      const value = JSON.parse(await read()) as Record<string, unknown>;
      const meta: SubagentMeta = {};
      if (typeof value.agentType === 'string') meta.agentType = value.agentType;
      if (typeof value.description === 'string') meta.description = value.description;
      if (typeof value.toolUseId === 'string') meta.toolUseId = value.toolUseId;
      result.meta = meta;
    } catch (error) {
      result.problem = {
        kind: error instanceof SyntaxError ? 'invalid-json' : 'unreadable',
        path,
        message: `Subagent metadata ${path} could not be read: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    this.metas.set(path, result);
    return result;
  }

  clear(): void {
    this.entries.clear();
    this.metas.clear();
  }
}

/**
 * The scanner of an entry that has only its state: it takes over the summary's records
 * (a saved file's, read from the index now, as plain Maps).
 */
function resumeEntry(path: string, e: Entry): Scanner | undefined {
  const own = (m: ReadonlyMap<string, UsageRecord>) =>
    e.body ? new Map(m) : (m as Map<string, UsageRecord>);
  try {
    return resumeScanner(
      path,
      e.state ?? e.body!.state(),
      own(e.summary.usage),
      own(e.summary.copies),
    );
  } catch (error) {
    if (error instanceof IndexProblem) return undefined;
    throw error;
  }
}

/** The last TAIL_BYTES of `previous` followed by `chunk` (a copy). */
function lastBytes(previous: Buffer, chunk: Buffer): Buffer {
  if (chunk.length >= TAIL_BYTES) return Buffer.from(chunk.subarray(chunk.length - TAIL_BYTES));
  const joined = Buffer.concat([previous, chunk]);
  return joined.subarray(Math.max(0, joined.length - TAIL_BYTES));
}
