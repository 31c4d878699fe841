import type { SessionFilters } from '../domain/filters.ts';
import type { SessionPage, SessionSummary } from '../domain/session.ts';

export type ConnectionKind = 'mcp' | 'rest' | 'local';

export interface ConnectionConfig {
  id: string;
  label: string;
  kind: ConnectionKind;
  /** MCP endpoint or REST base URL. */
  url?: string;
  /** REST: agent keys to watch. */
  agents?: string[];
  /** Connections that live only for this window (the demo, `npm start`). */
  ephemeral?: boolean;
}

/** What a connection can do; for MCP this comes from tools/list. */
export interface SourceCapabilities {
  listSessions: boolean;
  transcripts: boolean;
  comments: boolean;
  usage: boolean;
  manualTasks: boolean;
  complete: boolean;
}

export interface ListSessionsRequest {
  cursor?: string;
  limit: number;
  signal?: AbortSignal;
  filters?: SessionFilters;
  /**
   * With a cursor: the session ids already loaded from the earlier pages. A source drops
   * them from the page and takes pages of nothing else as paging that repeats itself.
   */
  loaded?: ReadonlySet<string>;
}

/** Something in a source's input that was skipped, repaired or could not be read. */
export interface SourceProblem {
  /** Short machine-readable kind, e.g. `invalid-json`, `unreadable`, `truncated-line`. */
  kind: string;
  message: string;
  /** File (local sources) or resource the problem is in. */
  path?: string;
  /** 1-based line number inside `path`. */
  line?: number;
}

/** One backend endpoint behind one interface, whatever protocol it speaks. */
export interface SessionSource {
  readonly config: ConnectionConfig;
  capabilities(signal?: AbortSignal): Promise<SourceCapabilities>;
  listSessions(request: ListSessionsRequest): Promise<SessionPage>;
  /**
   * Every session waiting on a human, whatever the paging of listSessions has
   * reached, so counts and badges are complete. Undefined: use the loaded pages.
   */
  listWaiting?(
    filters: SessionFilters | undefined,
    signal?: AbortSignal,
  ): Promise<{ sessions: SessionSummary[]; complete: boolean }>;
  /**
   * Input the source could not read or had to interpret (bad lines, unreadable files):
   * listed for the user, never silently dropped. Undefined: the source has none to report.
   */
  listProblems?(signal?: AbortSignal): Promise<SourceProblem[]>;
  /** Tests the connection end to end; resolves with a one-line description. */
  test(signal?: AbortSignal): Promise<string>;
  dispose(): Promise<void>;
}

/**
 * Sources that read files on this machine (local transcripts): the host watches their
 * folders and tells them what changed, so a refresh reads only that.
 */
export interface WatchedFilesSource extends SessionSource {
  /** Folders to watch, and which files in them (by relative path) matter. */
  watchTargets(): { dir: string; recursive: boolean; accept?: (path: string) => boolean }[];
  noteChanges(paths: readonly string[], kind: 'changed' | 'created' | 'deleted'): void;
}

export function watchesFiles(source: SessionSource | undefined): source is WatchedFilesSource {
  return (
    !!source &&
    typeof (source as Partial<WatchedFilesSource>).watchTargets === 'function' &&
    typeof (source as Partial<WatchedFilesSource>).noteChanges === 'function'
  );
}
