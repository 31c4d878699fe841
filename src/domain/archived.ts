/**
 * Archived sessions leave the default tree: a session the user archived, and the subagents
 * under it (a subagent is part of its parent's work, and would otherwise surface at the
 * top level with its parent gone).
 */
import type { DerivedStatus } from './derivedStatus.ts';
import type { SessionSummary } from './session.ts';

/** True when the session, or a session above it, is archived. */
export function underArchived(
  session: SessionSummary,
  isArchived: (sessionId: string) => boolean,
  byId?: ReadonlyMap<string, SessionSummary>,
): boolean {
  const seen = new Set<string>();
  let current: SessionSummary | undefined = session;
  let id: string | undefined = session.id;
  while (id !== undefined && !seen.has(id)) {
    if (isArchived(id)) return true;
    seen.add(id);
    id = current?.parentId;
    current = id === undefined ? undefined : byId?.get(id);
  }
  return false;
}

/** The groups without archived sessions and their subagents (empty groups dropped). */
export function withoutArchived(
  byStatus: ReadonlyMap<DerivedStatus, SessionSummary[]>,
  isArchived: (sessionId: string) => boolean,
): Map<DerivedStatus, SessionSummary[]> {
  const byId = new Map<string, SessionSummary>();
  for (const sessions of byStatus.values()) for (const s of sessions) byId.set(s.id, s);
  const out = new Map<DerivedStatus, SessionSummary[]>();
  for (const [status, sessions] of byStatus) {
    const kept = sessions.filter((s) => !underArchived(s, isArchived, byId));
    if (kept.length) out.set(status, kept);
  }
  return out;
}
