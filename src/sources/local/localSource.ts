/**
 * Claude Code and Codex sessions on this machine as a SessionSource. The first page of a
 * listing refreshes the index (reading only what changed); later pages page over that same
 * snapshot, so rows neither repeat nor go missing while files keep changing. Filters are
 * applied here (there is no server): harness, status, activity window and quality; the
 * viewer scope does not apply to one's own files.
 */
import { join } from 'node:path';
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

export class LocalSource implements SessionSource, LocalFiles {
  readonly config: ConnectionConfig;
  readonly operations: Partial<SourceOperations> = { localFiles: this };
  readonly index: LocalIndex;
  /** The sessions the current listing pages over. */
  private listing: LocalSession[] | undefined;

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
    this.index.noteChanges(paths, kind);
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
      const snapshot = await this.index.refresh(request.signal ? { signal: request.signal } : {});
      this.listing = snapshot.sessions.filter((s) => matchesFilters(s, request.filters));
    }
    const limit = Math.max(1, request.limit);
    const rows = this.listing.slice(offset, offset + limit);
    const next = offset + rows.length;
    const page: SessionPage = {
      sessions: rows.map((s) => s.summary),
      total: this.listing.length,
      invalidRows: 0,
    };
    if (next < this.listing.length) page.next = String(next);
    return page;
  }

  async listWaiting(
    filters: SessionFilters | undefined,
    signal?: AbortSignal,
  ): Promise<{ sessions: SessionSummary[]; complete: boolean }> {
    const snapshot = await this.index.refresh({
      maxAgeMs: REUSE_SNAPSHOT_MS,
      ...(signal ? { signal } : {}),
    });
    const sessions = snapshot.sessions
      .filter((s) => s.summary.status.status === 'waiting' && matchesFilters(s, filters))
      .map((s) => s.summary);
    return { sessions, complete: true };
  }

  async listProblems(signal?: AbortSignal): Promise<SourceProblem[]> {
    const snapshot = await this.index.refresh({
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

/** Whether a session passes the connection's filters (local interpretation). */
export function matchesFilters(s: LocalSession, filters: SessionFilters | undefined): boolean {
  if (!filters) return true;
  const sum = s.summary;
  if (filters.harness && sum.harness !== filters.harness) return false;
  if (filters.status) {
    const status = sum.status.status;
    const ok =
      filters.status === 'inactive'
        ? status === 'finished' || status === 'idle'
        : status === filters.status;
    if (!ok) return false;
  }
  const last = Date.parse(sum.lastActivityAt ?? '');
  if (filters.startDate) {
    const start = Date.parse(filters.startDate);
    if (!(last >= start)) return false;
  }
  if (filters.endDate) {
    const end = Date.parse(filters.endDate) + (DATE_ONLY.test(filters.endDate) ? 86_399_999 : 0);
    if (!(last <= end)) return false;
  }
  if (filters.quality === 'substantive' && !s.file.substantive) return false;
  if (filters.quality === 'idle' && s.file.substantive) return false;
  return true;
}
