import type { SessionFilters } from '../domain/filters.ts';
import type { SessionPage, SessionSummary } from '../domain/session.ts';
import type { LocalSession } from './local/aggregate.ts';
import type { UsageReport, UsageReportOptions } from './local/usageReport.ts';
import type { JsonToolCaller } from './mcp/jsonToolCaller.ts';
import type { ManualTasks, SessionCompletion, SessionInterrupt } from './steering.ts';

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

/**
 * What a connection offers, for menus, panel buttons and pickers: fixed by the adapter for
 * REST and local connections, from tools/list for MCP. The store keeps it per connection.
 */
export interface SourceCapabilities {
  listSessions: boolean;
  transcripts: boolean;
  comments: boolean;
  usage: boolean;
  manualTasks: boolean;
  complete: boolean;
  /** Running sessions can be interrupted (the agents REST API). */
  interrupt: boolean;
  /** Sessions can be resumed in a terminal with their agent's CLI (local transcripts). */
  resume: boolean;
}

/** The agents REST API's events of a session: its transcript. */
export interface SessionEvents {
  listEvents(sessionId: string, signal?: AbortSignal): Promise<unknown[]>;
}

/**
 * Transcripts in files on this machine: the host watches their folders and tells the source
 * what changed (a refresh then reads only that); the source totals its own usage; it is built
 * from the local settings (prices, folders), so it is built again when they change.
 */
export interface LocalFiles {
  /** Folders to watch, and which files in them (by relative path) matter. */
  watchTargets(): { dir: string; recursive: boolean; accept?: (path: string) => boolean }[];
  noteChanges(paths: readonly string[], kind: 'changed' | 'created' | 'deleted'): void;
  usage(options?: UsageReportOptions & { signal?: AbortSignal }): Promise<UsageReport>;
  /** Every session's transcript file, its harness and project, from a fresh scan. */
  sessionFiles(signal?: AbortSignal): Promise<readonly LocalSession[]>;
  /**
   * Fires when the sessions changed with no listing asking (a window's first listing shows
   * saved rows, marked provisional, and a check follows): the host lists again.
   */
  onDidUpdate?(listener: () => void): { dispose(): void };
}

/**
 * The operations only some backends have. Each adapter lists the ones it implements in
 * `SessionSource.operations` (the source factory picks the adapter by connection kind);
 * callers reach them through `sourceOperation` only, never by connection kind, method
 * name or class (the adapters live in a lazily loaded bundle: see domain/errors.ts).
 */
export interface SourceOperations {
  /** Agents REST API: interrupt a running session. */
  interrupt: SessionInterrupt;
  /** MCP session_complete. */
  complete: SessionCompletion;
  /** MCP: Itential manual tasks. */
  manualTasks: ManualTasks;
  /** MCP tools answered as JSON: comments, the usage dashboard, remote transcripts. */
  tools: JsonToolCaller;
  /** Agents REST API: session events. */
  events: SessionEvents;
  /** Local transcripts on this machine. */
  localFiles: LocalFiles;
}

/** The source's `name` operation, or undefined when its backend has none. */
export function sourceOperation<K extends keyof SourceOperations>(
  source: SessionSource | undefined,
  name: K,
): SourceOperations[K] | undefined {
  return source?.operations[name];
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
  /** What this backend can do beyond listing (read with `sourceOperation`). */
  readonly operations: Readonly<Partial<SourceOperations>>;
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
