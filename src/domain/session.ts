import type { StatusDerivation } from './derivedStatus.ts';

/** The backend-neutral row the tree, status bar and quick picks work with. */
export interface SessionSummary {
  /** Stable id the backend's other calls take (UUID, session_key, file path…). */
  id: string;
  connectionId: string;
  /** Short human label (slug, name). */
  label: string;
  status: StatusDerivation;
  harness?: string;
  model?: string;
  repository?: string;
  /**
   * The project the session worked in: its working directory for local sessions (a
   * subagent's is its parent's). Other backends leave it unset; the repository stands in.
   */
  project?: string;
  branch?: string;
  user?: string;
  startedAt?: string;
  lastActivityAt?: string;
  endedAt?: string;
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** USD; undefined = unknown (never shown as $0). */
  estimatedCost?: number;
  /** For waiting sessions: since when (ISO). */
  waitingSince?: string;
  parentId?: string;
  /** Manual tasks waiting on a human (platform sessions). */
  pendingTasks?: PendingTask[];
  /**
   * Whether a human is needed could not be read (the task or outstanding-call lookup failed
   * or answered in a shape we do not know): counted as unknown (`+?`), never as "no".
   */
  waitingUnknown?: boolean;
  /** Fields the backend sent that could not be read (wrong type): left out, the row kept. */
  unreadableFields?: string[];
  /** Fields only this backend has, as label/value rows for the Details tab (values are untrusted text). */
  details?: [string, string][];
  /** Context window use of the most recent call (agents REST API): a gauge in the panel. */
  context?: { used: number; window: number };
  /**
   * The harness's own session id, for its CLI to resume it (`claude --resume <id>`,
   * `codex resume <id>`; see domain/resume.ts): local top-level sessions only. Untrusted
   * file content, validated before use.
   */
  resumeId?: string;
}

export interface PendingTask {
  id: string;
  title?: string;
  viewType?: string;
  waitingAgeSeconds?: number;
  completionSupported: boolean;
}

/** One page of sessions plus how to get the next. */
export interface SessionPage {
  sessions: SessionSummary[];
  total?: number;
  /** Opaque continuation (offset or page key); undefined = last page. */
  next?: string;
  /** Rows the backend sent that failed validation: shown, never silently dropped. */
  invalidRows: number;
  /**
   * Listings whose paging repeated itself (a page key or offset seen before, or pages of
   * sessions already listed), e.g. an agent key: their paging stopped with the rows read.
   */
  pagingRepeated?: string[];
}
