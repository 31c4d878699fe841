/**
 * Claude Code and Codex sessions on this machine as a SessionSource. The first page of a
 * listing refreshes the index (reading only what changed); later pages page over that same
 * snapshot, so rows neither repeat nor go missing while files keep changing. Filters are
 * applied here (there is no server): harness, status, activity window and quality; the
 * viewer scope does not apply to one's own files.
 *
 * A window's first listings (those asked before the saved rows are read) show the rows
 * the last checked listing saved (savedRowsFile.ts), marked provisional; the refresh that
 * checks them runs right after and fires onDidUpdate, on which the host lists again and
 * gets that refresh's rows. The usage report and session files only get checked rows.
 */
import { join } from 'node:path';
import type { DerivedStatus } from '../../domain/derivedStatus.ts';
import type { SessionFilters } from '../../domain/filters.ts';
import type { Logger } from '../../util/logger.ts';
import type { SessionPage, SessionSummary } from '../../domain/session.ts';
import type {
  ConnectionConfig,
  ListSessionsRequest,
  LocalFiles,
  SessionSource,
  SourceCapabilities,
  SourceOperations,
  SourceProblem,
} from '../sessionSource.ts';
import type { LocalSession } from './aggregate.ts';
import { LocalIndex, type LocalIndexOptions, type LocalSnapshot } from './localIndex.ts';
import type { ShownRows } from './savedRowsView.ts';
import { buildUsageReport, type UsageReport, type UsageReportOptions } from './usageReport.ts';

export interface LocalSourceOptions extends LocalIndexOptions {
  config: ConnectionConfig;
  /** Use an existing index (shares its cache). */
  index?: LocalIndex;
  /** Where a failed scan helper and each model without a price are told (once per model). */
  log?: Logger;
}

/** listWaiting after a listing reuses that scan when it is this recent. */
const REUSE_SNAPSHOT_MS = 1_000;
const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** The rows a listing pages over: a checked snapshot's, or the saved ones shown first. */
interface Listing {
  readonly total: number;
  page(offset: number, limit: number): SessionSummary[];
  /** Saved rows, not checked: a checked listing follows (onDidUpdate). */
  readonly provisional: boolean;
}

export class LocalSource implements SessionSource, LocalFiles {
  readonly config: ConnectionConfig;
  readonly operations: Partial<SourceOperations> = { localFiles: this };
  readonly index: LocalIndex;
  /** The sessions the current listing pages over. */
  private listing: Listing | undefined;
  /** The saved rows, read for a window's first listings (see savedFirst). */
  private opening: Promise<ShownRows | undefined> | undefined;
  /** The saved rows were read: later listings are checked ones. */
  private opened = false;
  /** The check after the saved rows ended and no listing has taken its snapshot yet. */
  private checkedUnseen = false;
  private readonly updateListeners = new Set<() => void>();
  private disposed = false;

  constructor(options: LocalSourceOptions) {
    this.config = options.config;
    const log = options.log;
    this.index =
      options.index ??
      new LocalIndex({
        connectionId: options.config.id,
        ...(log && {
          onScanHelperFailure: (error: Error) =>
            log.warn(
              `Local transcripts: a scan helper process failed (${error.message}); ` +
                'its files were read in the extension host instead.',
            ),
          onUnknownModel: (model: string) =>
            log.warn(
              `Local transcripts: no price for model "${model}" (neither @pydantic/genai-prices ` +
                'nor sessionInspector.local.prices has one): its tokens count, its cost is unknown.',
            ),
        }),
        ...options,
        ...(options.persist &&
          log &&
          !options.persist.log && {
            // One line when a saved index cannot be used or saved.
            persist: { ...options.persist, log: (message: string) => log.warn(message) },
          }),
      });
  }

  /**
   * The folders worth watching: a write there can change the listing. (Claude Code keeps
   * other JSONL files, like history.jsonl, outside projects/.)
   */
  watchTargets(): { dir: string; recursive: boolean; accept: (path: string) => boolean }[] {
    const jsonl = (path: string) => path.endsWith('.jsonl');
    return this.index
      .roots()
      .flatMap((root) =>
        (root.harness === 'codex'
          ? [join(root.path, 'sessions'), join(root.path, 'archived_sessions')]
          : [join(root.path, 'projects')]
        ).map((dir) => ({ dir, recursive: true, accept: jsonl })),
      );
  }

  /** What a watcher saw; the next listing reads only those files when it can (LocalIndex). */
  noteChanges(paths: readonly string[], kind: 'changed' | 'created' | 'deleted'): void {
    this.checkedUnseen = false;
    this.index.noteChanges(paths, kind);
  }

  /**
   * Fires when the check after the saved rows ended (with no listing asking): list again
   * to show the checked rows. A listener added after that, before a listing took them, is
   * called at once.
   */
  onDidUpdate(listener: () => void): { dispose(): void } {
    this.updateListeners.add(listener);
    if (this.checkedUnseen) queueMicrotask(() => this.updateListeners.has(listener) && listener());
    return { dispose: () => this.updateListeners.delete(listener) };
  }

  /**
   * The saved rows for the listings asked before they were read (a window's first), with
   * the check started once they are; undefined for any other listing, or when there are
   * none that can be used.
   */
  private savedFirst(): Promise<ShownRows | undefined> | undefined {
    if (this.opened || this.index.snapshot || !this.index.savedRowsFile) return undefined;
    // The listings waiting hold the promise; this source lets go of the rows once read
    // (the current listing keeps what it shows).
    this.opening ??= this.index.savedRows().then(
      (rows) => {
        this.opened = true;
        this.opening = undefined;
        if (rows && !this.disposed) this.check();
        return rows;
      },
      () => {
        this.opened = true;
        this.opening = undefined;
        return undefined;
      },
    );
    return this.opening;
  }

  /** The refresh that checks the saved rows, then onDidUpdate (also when it fails). */
  private check(): void {
    const done = () => {
      if (this.disposed) return;
      this.checkedUnseen = this.index.snapshot !== undefined;
      for (const listener of [...this.updateListeners]) listener();
    };
    this.index.refresh().then(done, done);
  }

  /**
   * A checked snapshot: the check's, for the listings of the next load after it (asked in
   * one turn of the event loop), else a refresh.
   */
  private checked(options: { signal?: AbortSignal; maxAgeMs?: number }): Promise<LocalSnapshot> {
    if (this.checkedUnseen && this.index.snapshot) {
      setImmediate(() => (this.checkedUnseen = false));
      return Promise.resolve(this.index.snapshot);
    }
    return this.index.refresh(options);
  }

  /** `use` on the saved rows when this listing gets them; undefined otherwise (or on a bad row). */
  private async fromSaved<T>(use: (rows: ShownRows) => T): Promise<T | undefined> {
    const rows = await this.savedFirst();
    if (!rows) return undefined;
    try {
      return use(rows);
    } catch {
      // A damaged row (savedRowsView.ts): this listing is a checked one instead.
      return undefined;
    }
  }

  async capabilities(): Promise<SourceCapabilities> {
    return {
      listSessions: true,
      transcripts: true,
      comments: false,
      usage: true,
      manualTasks: false,
      complete: false,
      interrupt: false,
      resume: true,
    };
  }

  async listSessions(request: ListSessionsRequest): Promise<SessionPage> {
    const offset = request.cursor ? Number.parseInt(request.cursor, 10) : 0;
    if (!Number.isFinite(offset) || offset < 0) {
      throw new RangeError(`Invalid cursor: ${request.cursor}`);
    }
    if (!request.cursor || !this.listing) {
      const filters = request.filters;
      this.listing =
        (await this.fromSaved((rows) => savedListing(rows, filters))) ??
        checkedListing(
          await this.checked(request.signal ? { signal: request.signal } : {}),
          filters,
        );
    }
    const limit = Math.max(1, request.limit);
    const sessions = this.listing.page(offset, limit);
    const next = offset + sessions.length;
    const page: SessionPage = { sessions, total: this.listing.total, invalidRows: 0 };
    if (next < this.listing.total) page.next = String(next);
    if (this.listing.provisional) page.provisional = true;
    return page;
  }

  async listWaiting(
    filters: SessionFilters | undefined,
    signal?: AbortSignal,
  ): Promise<{ sessions: SessionSummary[]; complete: boolean }> {
    const saved = await this.fromSaved((rows) =>
      rows
        .select(
          (h, status, ms, q) => status === 'waiting' && passesFilters(filters, h, status, ms, q),
        )
        .map((i) => rows.summary(i)),
    );
    if (saved) return { sessions: saved, complete: true };
    const snapshot = await this.checked({
      maxAgeMs: REUSE_SNAPSHOT_MS,
      ...(signal ? { signal } : {}),
    });
    const sessions = snapshot.sessions
      .filter((s) => s.summary.status.status === 'waiting' && matchesFilters(s, filters))
      .map((s) => s.summary);
    return { sessions, complete: true };
  }

  async listProblems(signal?: AbortSignal): Promise<SourceProblem[]> {
    const saved = await this.fromSaved((rows) => rows.problems);
    if (saved) return saved;
    const snapshot = await this.checked({
      maxAgeMs: REUSE_SNAPSHOT_MS,
      ...(signal ? { signal } : {}),
    });
    return snapshot.problems;
  }

  /** Token and cost totals per day, model, project and harness. */
  async usage(options: UsageReportOptions & { signal?: AbortSignal } = {}): Promise<UsageReport> {
    const snapshot = await this.index.refresh(options.signal ? { signal: options.signal } : {});
    return buildUsageReport(snapshot, this.index.pricing, options);
  }

  async sessionFiles(signal?: AbortSignal): Promise<readonly LocalSession[]> {
    return (await this.index.refresh(signal ? { signal } : {})).sessions;
  }

  async test(signal?: AbortSignal): Promise<string> {
    return describeSnapshot(await this.index.refresh(signal ? { signal } : {}));
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.updateListeners.clear();
    this.listing = undefined;
    await this.index.dispose();
    this.index.cache.clear();
  }
}

/** "Claude Code: 12 session files (3 subagent) in /home/u/.claude; Codex: …; 2 problems". */
export function describeSnapshot(snapshot: LocalSnapshot): string {
  const parts = snapshot.roots.map((r) => {
    const name = r.harness === 'codex' ? 'Codex' : 'Claude Code';
    switch (r.state) {
      case 'missing':
        return `${name}: ${r.path} not found`;
      case 'unreadable':
        return `${name}: ${r.path} unreadable`;
      case 'duplicate':
        return `${name}: ${r.path} is the same folder as another root`;
      case 'empty':
        return `${name}: no session files in ${r.path}`;
      default: {
        const extra = [
          r.subagentFiles ? `${r.subagentFiles} subagent` : '',
          r.archivedFiles ? `${r.archivedFiles} archived` : '',
        ].filter(Boolean);
        const files = r.sessionFiles + r.subagentFiles;
        return `${name}: ${files} session file${files === 1 ? '' : 's'}${extra.length ? ` (${extra.join(', ')})` : ''} in ${r.path}`;
      }
    }
  });
  const n = snapshot.problems.length;
  if (n > 0) parts.push(`${n} problem${n === 1 ? '' : 's'} in the files`);
  return parts.join('; ');
}

/** A checked snapshot's sessions that pass `filters`. */
function checkedListing(snapshot: LocalSnapshot, filters: SessionFilters | undefined): Listing {
  const rows = snapshot.sessions.filter((s) => matchesFilters(s, filters));
  return {
    total: rows.length,
    page: (offset, limit) => rows.slice(offset, offset + limit).map((s) => s.summary),
    provisional: false,
  };
}

/** The saved rows that pass `filters`, each built when a page shows it. */
function savedListing(rows: ShownRows, filters: SessionFilters | undefined): Listing {
  const shown = rows.select((h, status, ms, q) => passesFilters(filters, h, status, ms, q));
  return {
    total: shown.length,
    page: (offset, limit) => shown.slice(offset, offset + limit).map((i) => rows.summary(i)),
    provisional: true,
  };
}

/** Whether a session passes the connection's filters (local interpretation). */
export function matchesFilters(s: LocalSession, filters: SessionFilters | undefined): boolean {
  if (!filters) return true;
  const sum = s.summary;
  const last = Date.parse(sum.lastActivityAt ?? '');
  return passesFilters(filters, sum.harness, sum.status.status, last, s.file.substantive);
}

/** matchesFilters on what it looks at: harness, status, last activity (epoch ms), quality. */
export function passesFilters(
  filters: SessionFilters | undefined,
  harness: string | undefined,
  status: DerivedStatus,
  last: number,
  substantive: boolean,
): boolean {
  if (!filters) return true;
  if (filters.harness && harness !== filters.harness) return false;
  if (filters.status) {
    const ok =
      filters.status === 'inactive'
        ? status === 'finished' || status === 'idle'
        : status === filters.status;
    if (!ok) return false;
  }
  if (filters.startDate) {
    const start = Date.parse(filters.startDate);
    if (!(last >= start)) return false;
  }
  if (filters.endDate) {
    const end = Date.parse(filters.endDate) + (DATE_ONLY.test(filters.endDate) ? 86_399_999 : 0);
    if (!(last <= end)) return false;
  }
  if (filters.quality === 'substantive' && !substantive) return false;
  if (filters.quality === 'idle' && substantive) return false;
  return true;
}
