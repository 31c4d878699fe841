/**
 * One refreshable view of every local session: discovery, the per-file cache, subagent
 * metadata and the aggregation, run one refresh at a time (a scanner must never be fed by
 * two reads at once). Shared by LocalSource and scanUsage(). With `persist`, the cache is
 * also kept on disk (persistedIndex.ts): a first refresh takes what any window saved, and
 * when files nobody indexed are left, one window scans them under a lock while the
 * others wait and read what it saved. Rows are aggregated again only where files changed
 * (Aggregation); a window that opens takes the other rows' sums from the index.
 */
import { Aggregation, setStatus, sortSessions, type LocalSession } from './aggregate.ts';
import { stat } from 'node:fs/promises';
import {
  discoverLocalFiles,
  resolveRoots,
  type DiscoveredFile,
  type DiscoveryResult,
  type LocalRoot,
  type LocalRootsOptions,
  type RootReport,
} from './discovery.ts';
import { DEFAULT_STATUS_THRESHOLDS, type StatusThresholds } from './localStatus.ts';
import { IndexProblem, PersistedIndex, type PersistOptions } from './persistedIndex.ts';
import { Pricing, type PriceTable } from './pricing.ts';
import { SAVED_ROWS_FORMAT_VERSION } from './savedRows.ts';
import type { ShownRows } from './savedRowsView.ts';
import { SavedRowsFile } from './savedRowsFile.ts';
import type { ScanHelpers } from './engine/parallelScan.ts';
import { ScanCache } from './scanCache.ts';
import type { FileSummary, LocalProblem, SubagentMeta } from './types.ts';

export interface LocalIndexOptions extends LocalRootsOptions {
  /** Goes into every SessionSummary.connectionId (default `local`). */
  connectionId?: string;
  /** Prices by model id, before genai-prices' (USD per million tokens). */
  priceOverrides?: PriceTable;
  /** Called once per model that has tokens and no price (for the log). */
  onUnknownModel?: (model: string) => void;
  thresholds?: Partial<StatusThresholds>;
  /** Clock for the derived status (tests). */
  now?: () => number;
  /** Share a cache between indexes (tests, benchmarks). */
  cache?: ScanCache;
  /** The scan worker script, for cold scans in parallel (see ScanCacheOptions). */
  scanWorker?: string | URL;
  /** Whether the scan workers are threads or processes (see ScanCacheOptions). */
  scanHelpers?: ScanHelpers;
  /** A scan helper failed (its files were read on this thread instead). */
  onScanHelperFailure?: (error: Error) => void;
  /** Keep the scan cache on disk, shared with other windows (see persistedIndex.ts). */
  persist?: PersistOptions;
  /**
   * Refreshed once, for usage totals (the usage-report CLI): the aggregation keeps nothing
   * for a later refresh (AggregationOptions.oneShot) and subagent meta files, which only
   * give rows their labels, are not read. (Rows are not what the CLI shows: with its
   * usage-only reads, a Claude Code row's label is the fallback from its session id.)
   */
  oneShot?: boolean;
}

/**
 * After the first refresh, files nobody indexed are scanned without taking the lock when
 * they are fewer bytes than this (a new session file: cheaper to read than to wait for).
 */
const LOCK_MIN_BYTES = 8 << 20;

export interface LocalSnapshot {
  /** Epoch ms of the refresh. */
  scannedAt: number;
  roots: RootReport[];
  files: DiscoveredFile[];
  /** Newest activity first. */
  sessions: LocalSession[];
  problems: LocalProblem[];
  /** Total size of the transcript files. */
  bytes: number;
}

export class LocalIndex {
  readonly cache: ScanCache;
  readonly pricing: Pricing;
  /** The index on disk, when persisting (and this machine supports its format). */
  readonly persisted: PersistedIndex | undefined;
  /** The rows of the last checked listing on disk, beside the index (savedRowsFile.ts). */
  readonly savedRowsFile: SavedRowsFile | undefined;
  private readonly options: LocalIndexOptions;
  private readonly thresholds: StatusThresholds;
  private readonly now: () => number;
  private running: Promise<LocalSnapshot> | undefined;
  private last: LocalSnapshot | undefined;
  private lastSummaries: readonly FileSummary[] = [];
  /** The rows as last aggregated (only changed groups are aggregated again). */
  readonly aggregation: Aggregation;
  /** Paths seeded from an index in this refresh (a newer index read after a wait replaces them). */
  private seededRows: string[] = [];
  /** Files a watcher saw written since the last refresh (see noteChanges). */
  private readonly changed = new Set<string>();
  /** A watcher saw a file created or deleted: the next refresh must list the folders. */
  private structureChanged = false;
  private discoveryProblems: LocalProblem[] = [];
  /** Refreshes and saves of the index run one after another (see exclusive). */
  private queue: Promise<unknown> = Promise.resolve();
  private ranOnce = false;
  /** cache.changes as of the last save (or load): the index is up to date while equal. */
  private savedChanges = 0;
  private saveTimer: NodeJS.Timeout | undefined;
  /** How long the last save took (the next one waits 100 times as long, at least). */
  private lastSaveMs = 0;
  private saveFailed = false;
  /** No usable saved rows were found: they are written at the next save, changed or not. */
  private rowsWanted = false;
  private disposed = false;

  constructor(options: LocalIndexOptions = {}) {
    this.options = options;
    this.aggregation = new Aggregation({ oneShot: options.oneShot === true });
    this.cache =
      options.cache ??
      new ScanCache(
        options.scanWorker
          ? {
              scanWorker: options.scanWorker,
              helpers: options.scanHelpers ?? 'threads',
              ...(options.onScanHelperFailure
                ? { onHelperFailure: options.onScanHelperFailure }
                : {}),
            }
          : {},
      );
    this.pricing = new Pricing(
      options.priceOverrides,
      options.onUnknownModel ? { onUnknownModel: options.onUnknownModel } : {},
    );
    this.thresholds = { ...DEFAULT_STATUS_THRESHOLDS, ...options.thresholds };
    this.now = options.now ?? Date.now;
    this.persisted =
      options.persist && PersistedIndex.supported()
        ? new PersistedIndex(
            options.persist,
            this.roots().map((r) => `${r.harness}:${r.path}`),
            // What the saved rows' costs depend on.
            `${this.pricing.version}\n${JSON.stringify(options.priceOverrides ?? {})}`,
          )
        : undefined;
    this.savedRowsFile =
      this.persisted &&
      new SavedRowsFile(
        this.persisted.file,
        `rows ${SAVED_ROWS_FORMAT_VERSION}\n${this.persisted.settings}\n${JSON.stringify(this.thresholds)}`,
        this.thresholds,
        options.persist?.log,
      );
  }

  /**
   * The rows the last checked listing of any window saved, with statuses for now, before
   * this index has refreshed (undefined after, or when there are none that can be used).
   * Only for showing at once: nothing was listed or checked, a refresh must follow.
   */
  async savedRows(): Promise<ShownRows | undefined> {
    if (!this.savedRowsFile || this.ranOnce) return undefined;
    const rows = await this.savedRowsFile.load(this.options.connectionId ?? 'local', this.now());
    if (!rows) this.rowsWanted = true;
    return this.ranOnce ? undefined : rows;
  }

  /** The last completed refresh, if any. */
  get snapshot(): LocalSnapshot | undefined {
    return this.last;
  }

  /** The folders this index reads (for watching them). */
  roots(): LocalRoot[] {
    return resolveRoots(this.options);
  }

  /**
   * Hints from a file watcher. When every hinted file is already known and none was
   * created or deleted, the next refresh stats only those files instead of listing every
   * folder again; any other change (or no hint at all) makes it a full listing.
   */
  noteChanges(paths: readonly string[], kind: 'changed' | 'created' | 'deleted'): void {
    if (kind !== 'changed') this.structureChanged = true;
    for (const p of paths) this.changed.add(p);
  }

  /**
   * Rescans (reading only what changed). Concurrent calls share one run; a snapshot
   * younger than `maxAgeMs` is returned as is when no run is under way. `signal` abandons
   * this caller's wait, not the shared run (another caller may still want it; a run is
   * cheap to finish).
   */
  refresh(options: { signal?: AbortSignal; maxAgeMs?: number } = {}): Promise<LocalSnapshot> {
    const { signal, maxAgeMs = 0 } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    // A refresh under way is newer than the last one, however young (a listing's waiting
    // list must not lag behind the sessions listed with it).
    if (!this.running && this.last && maxAgeMs > 0 && this.now() - this.last.scannedAt < maxAgeMs) {
      return Promise.resolve(this.last);
    }
    this.running ??= this.exclusive(() => this.run()).finally(() => {
      this.running = undefined;
    });
    return signal ? abortable(this.running, signal) : this.running;
  }

  /** Runs `task` after every refresh and save queued before it. */
  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task, task);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async run(): Promise<LocalSnapshot> {
    const persisted = this.persisted;
    const first = !this.ranOnce;
    this.ranOnce = true;
    this.seededRows = [];
    // A first scan's workers start while the folders are listed, unless a saved index is
    // likely to leave them nothing to do.
    if (!persisted || !first || !(await persisted.exists())) this.cache.startWorkers();
    let discovery: Awaited<ReturnType<typeof discoverLocalFiles>>;
    try {
      discovery = (await this.restatChanged()) ?? (await discoverLocalFiles(this.options));
    } catch (error) {
      this.cache.stopWorkers();
      throw error;
    }
    this.discoveryProblems = discovery.problems;
    const locked = persisted ? await this.useIndex(persisted, discovery.files, first) : false;
    // Subagent metadata is read while the transcripts are scanned (readMetas never throws).
    const metaReads = this.options.oneShot ? [] : this.cache.readMetas(discovery.files);
    let summaries: FileSummary[];
    try {
      summaries = await this.cache.scanAll(discovery.files);
    } catch (error) {
      if (locked) await persisted!.lock.release();
      throw error;
    }
    if (locked) {
      // Saved at once, for the windows waiting on the lock; after this refresh returns.
      void this.exclusive(() => this.saveNow()).finally(() => persisted!.lock.release());
    } else this.scheduleSave();
    const metas = new Map<string, SubagentMeta>();
    const problems: LocalProblem[] = [...discovery.problems];
    for (const [i, m] of (await metaReads).entries()) {
      if (m?.meta) metas.set(discovery.files[i]!.path, m.meta);
      if (m?.problem) problems.push(m.problem);
    }
    for (const s of summaries) problems.push(...s.problems);
    const now = this.now();
    const unchanged =
      this.last !== undefined &&
      summaries.length === this.lastSummaries.length &&
      summaries.every((s, i) => s === this.lastSummaries[i]) &&
      discovery.files.every((f, i) => f.mtimeMs === this.last!.files[i]?.mtimeMs);
    let sessions: LocalSession[];
    try {
      sessions = unchanged
        ? this.restatus(this.last!.sessions, now)
        : this.aggregation.run({
            connectionId: this.options.connectionId ?? 'local',
            files: discovery.files,
            summaries,
            metas,
            now,
            pricing: this.pricing,
            thresholds: this.thresholds,
          });
    } catch (error) {
      if (!(error instanceof IndexProblem) || !persisted) throw error;
      // A saved body that fails its check when read: forget what the index gave, scan.
      this.options.persist?.log?.(
        `Local transcripts: the saved index ${persisted.file} cannot be used ` +
          `(${error.message}); it is rebuilt from the transcripts.`,
      );
      this.cache.clear();
      this.aggregation.clear();
      persisted.close();
      this.last = undefined;
      this.lastSummaries = [];
      return this.run();
    }
    this.lastSummaries = summaries;
    this.last = {
      scannedAt: now,
      roots: discovery.roots,
      files: discovery.files,
      sessions,
      problems,
      bytes: discovery.files.reduce((n, f) => n + f.size, 0),
    };
    return this.last;
  }

  /**
   * On a first refresh, or when many bytes of files this cache does not know turn up:
   * seeds the cache with the saved index's entries for them; when some are still unknown,
   * takes the lock to scan them, after waiting for a window that holds it and reading what
   * it saved. True when this holds the lock (the caller saves, then releases it).
   */
  private async useIndex(
    persisted: PersistedIndex,
    files: readonly DiscoveredFile[],
    first: boolean,
  ): Promise<boolean> {
    const unknown = () => files.filter((f) => !this.cache.knows(f.path));
    const seed = async () => {
      const loaded = await persisted.loadIfChanged();
      if (!loaded) return;
      // Rows from two saves must not mix (each is valid with the files of its own save):
      // what an index gave in this refresh is dropped for the newer one, before any was
      // read; rows are taken only while no other row is known (nothing aggregated yet).
      if (this.seededRows.length > 0) {
        this.cache.unseed(this.seededRows);
        this.aggregation.clear();
        this.seededRows = [];
      }
      const seeded = this.cache.seed(files, loaded);
      if (this.aggregation.size > 0) return;
      // Every saved row, also of files not listed or not taken (their groups are then
      // aggregated again: a removed file may have owned another's responses).
      const taken = new Set(seeded);
      for (const [path, entry] of loaded) {
        if (!entry.row) continue;
        const summary = taken.has(path) ? this.cache.summaryOf(path) : undefined;
        this.aggregation.seed(path, { ...entry.row, summary });
      }
      this.seededRows = seeded;
    };
    const before = unknown();
    if (before.length === 0) return false;
    // Later, a few new files are read rather than waited for or looked up (which decodes
    // the whole index again).
    if (!first && before.reduce((n, f) => n + f.size, 0) < LOCK_MIN_BYTES) return false;
    await seed();
    if (unknown().length === 0) return false;
    // Helpers started early for this scan would idle through the wait: stopped.
    const lock = await persisted.lock.acquire(() => this.cache.stopWorkers());
    if (lock.waited) persisted.stats.lockWaits++;
    if (lock.tookOver) persisted.stats.lockTakeovers++;
    if (lock.waited || lock.tookOver) await seed();
    if (!lock.acquired) return false;
    if (unknown().length === 0) {
      await persisted.lock.release();
      return false;
    }
    return true;
  }

  /** Saves the index when the cache changed since it was saved or loaded (never throws). */
  private async saveNow(): Promise<void> {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const persisted = this.persisted;
    const changes = this.cache.changes;
    if (!persisted || (changes === this.savedChanges && !this.rowsWanted)) return;
    const started = performance.now();
    try {
      if (changes !== this.savedChanges) {
        await persisted.save(this.cache.resting(), (f) => {
          const row = this.aggregation.row(f.path);
          return row && row.summary === f.summary ? row : undefined;
        });
        this.savedChanges = changes;
      }
      // The rows of the listing the index was saved with, for the next window to show first.
      if (this.last && this.savedRowsFile) {
        await this.savedRowsFile.save(this.last.sessions, this.last.problems, this.now());
        this.rowsWanted = false;
      }
      this.lastSaveMs = performance.now() - started;
    } catch (error) {
      if (this.saveFailed) return;
      this.saveFailed = true;
      this.options.persist?.log?.(
        `Local transcripts: the index could not be saved to ${persisted.file} ` +
          `(${error instanceof Error ? error.message : String(error)}); windows will scan on their own.`,
      );
    }
  }

  /**
   * A save after a while, once per change burst (a live session changes every second), and
   * never more than 1% of the time: a large index takes a while to write.
   */
  private scheduleSave(): void {
    if (!this.persisted || this.disposed || this.saveTimer) return;
    if (this.cache.changes === this.savedChanges && !this.rowsWanted) return;
    this.saveTimer = setTimeout(
      () => {
        this.saveTimer = undefined;
        void this.exclusive(() => this.saveNow());
      },
      Math.max(this.persisted.saveDelayMs, 100 * this.lastSaveMs),
    );
    this.saveTimer.unref();
  }

  /** Saves the index now if it changed (after the refresh under way, if any). */
  saveIndex(): Promise<void> {
    return this.exclusive(() => this.saveNow());
  }

  /** Saves what changed and stops the timer (the index is kept on disk for next time). */
  async dispose(): Promise<void> {
    this.disposed = true;
    await this.saveIndex();
    await this.persisted?.lock.release();
    this.persisted?.close();
  }

  /**
   * The last listing with only the hinted files stat'ed again, or undefined when a full
   * listing is needed (no hints, a structural change, an unknown or vanished file).
   */
  private async restatChanged(): Promise<DiscoveryResult | undefined> {
    const last = this.last;
    const changed = [...this.changed];
    const structural = this.structureChanged;
    this.changed.clear();
    this.structureChanged = false;
    if (!last || structural || changed.length === 0) return undefined;
    const byPath = new Map(last.files.map((f, i) => [f.path, i]));
    if (!changed.every((p) => byPath.has(p))) return undefined;
    const files = [...last.files];
    for (const path of changed) {
      const stats = await stat(path).catch(() => undefined);
      if (!stats?.isFile()) return undefined;
      const i = byPath.get(path)!;
      files[i] = {
        ...files[i]!,
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        ino: stats.ino,
        dev: stats.dev,
      };
    }
    // Folder-level problems (missing or unreadable roots) stay as the last listing found them.
    return { roots: last.roots, files, problems: this.discoveryProblems };
  }

  /** Nothing was written: only the clock moved, so only statuses can change. */
  private restatus(sessions: LocalSession[], now: number): LocalSession[] {
    for (const s of sessions) setStatus(s, now, this.thresholds);
    return sortSessions(sessions);
  }
}

/** `promise`, or a rejection with the signal's reason as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
