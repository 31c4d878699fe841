/**
 * One status vocabulary for every backend, used to group the sessions tree.
 * Each backend's raw value maps here in exactly one function; the raw value is
 * always kept next to the derived one so nothing a server says is lost.
 * The table lives in docs/derived-status.md and is unit-tested row by row.
 */
import type { DerivedStatus, StatusDerivation } from '../shared/sessionSummary.ts';
import { DERIVED_STATUSES } from '../shared/sessionSummary.ts';

// The vocabulary lives in src/shared, where the webview app can import it too.
export { DERIVED_STATUSES } from '../shared/sessionSummary.ts';
export type { DerivedStatus, FinishOutcome, StatusDerivation } from '../shared/sessionSummary.ts';

/** Closedloop-style `list-agent-sessions` status (already derived server-side). */
export function deriveReportingStatus(raw: string | null | undefined): StatusDerivation {
  const value = raw ?? '';
  switch (value.toLowerCase()) {
    case 'waiting':
      return { status: 'waiting', raw: value };
    case 'active':
      return { status: 'active', raw: value };
    case 'inactive':
      // "inactive covers finished (non-failed) runs"
      return { status: 'finished', outcome: 'completed', raw: value };
    case 'error':
      return { status: 'error', raw: value };
    case 'stale':
      return { status: 'stale', raw: value };
    default:
      return { status: 'unknown', raw: value };
  }
}

/**
 * Itential platform status. `pendingManualTasks`: undefined/null = unknown,
 * 0 = none, >0 = a human is needed.
 */
export function derivePlatformStatus(
  raw: string | null | undefined,
  pendingManualTasks?: number | null,
): StatusDerivation {
  const value = raw ?? '';
  const upper = value.toUpperCase();
  if ((upper === 'RUNNING' || upper === 'PAUSED') && (pendingManualTasks ?? 0) > 0) {
    return { status: 'waiting', raw: value };
  }
  switch (upper) {
    case 'PENDING':
    case 'RUNNING':
    case 'PAUSING':
    case 'CANCELING':
      return { status: 'active', raw: value };
    case 'PAUSED':
      return { status: 'idle', raw: value };
    case 'COMPLETE':
      return { status: 'finished', outcome: 'completed', raw: value };
    case 'CANCELED':
      return { status: 'finished', outcome: 'canceled', raw: value };
    case 'FAILED':
      return { status: 'error', raw: value };
    default:
      return { status: 'unknown', raw: value };
  }
}

/**
 * REST agents API status. `stopped` is idle, not finished: the session resumes on
 * the next message. Pending client tool calls mean the agent waits on the caller.
 */
export function deriveAgentApiStatus(
  raw: string | null | undefined,
  pendingClientToolCalls = 0,
  lastEventType?: string,
): StatusDerivation {
  const value = raw ?? '';
  if (pendingClientToolCalls > 0) return { status: 'waiting', raw: value };
  switch (value.toLowerCase()) {
    case 'running':
      return { status: 'active', raw: value };
    case 'unstarted':
      return { status: 'idle', raw: value };
    case 'stopped':
      return lastEventType === 'session_interrupted'
        ? { status: 'idle', outcome: 'interrupted', raw: value }
        : { status: 'idle', raw: value };
    default:
      return { status: 'unknown', raw: value };
  }
}

/** Order of the tree's groups: what needs the user first. */
export function statusRank(status: DerivedStatus): number {
  return DERIVED_STATUSES.indexOf(status);
}
