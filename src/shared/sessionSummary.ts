/**
 * A session as both sides of postMessage see it: the row the tree, status bar and quick picks
 * work with, which the session panel shows on its Details tab. src/domain/session.ts and
 * src/domain/derivedStatus.ts re-export these; the mapping of each backend's raw status into
 * this vocabulary stays in derivedStatus.ts.
 */

/** One status vocabulary for every backend, used to group the sessions tree. */
export const DERIVED_STATUSES = [
  'waiting',
  'active',
  'idle',
  'error',
  'finished',
  'stale',
  'unknown',
] as const;
export type DerivedStatus = (typeof DERIVED_STATUSES)[number];

/** How a finished session ended: canceled or interrupted must never look completed. */
export type FinishOutcome = 'completed' | 'canceled' | 'interrupted';

export interface StatusDerivation {
  status: DerivedStatus;
  outcome?: FinishOutcome;
  /** The backend's own value, shown in tooltips. */
  raw: string;
}

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
   * `codex resume <id>`; see src/domain/resume.ts): local top-level sessions only. Untrusted
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
