/**
 * What the Sessions tree shows, computed without vscode so it can be unit-tested
 * and benchmarked: grouping with subagents nested under their parent, paging inside
 * a group, the text filter, and each session row's label, description and tooltip.
 */
import type { DerivedStatus } from './derivedStatus.ts';
import { DERIVED_STATUSES } from './derivedStatus.ts';
import { matchesText } from './filters.ts';
import { formatCost, formatTokens, relativeTime } from './format.ts';
import type { SessionSummary } from './session.ts';

/** Rows shown per group before a "Show more" row. */
export const GROUP_PAGE = 200;

export interface GroupModel {
  status: DerivedStatus;
  /** Top-level sessions of the group (subagents sit under their parent). */
  sessions: SessionSummary[];
}

export interface SessionGroups {
  groups: GroupModel[];
  /** Subagent sessions by parent id. */
  children: Map<string, SessionSummary[]>;
}

/** Groups in the documented order, empty ones dropped, filtered by text. */
export function buildGroups(
  byStatus: ReadonlyMap<DerivedStatus, SessionSummary[]>,
  text = '',
): SessionGroups {
  const all = [...byStatus.values()].flat();
  const ids = new Set(all.map((s) => s.id));
  const children = new Map<string, SessionSummary[]>();
  for (const session of all) {
    if (session.parentId && ids.has(session.parentId)) {
      const list = children.get(session.parentId);
      if (list) list.push(session);
      else children.set(session.parentId, [session]);
    }
  }
  const groups: GroupModel[] = [];
  for (const status of DERIVED_STATUSES) {
    const sessions = (byStatus.get(status) ?? []).filter(
      (s) => !(s.parentId && ids.has(s.parentId)) && (text === '' || matchesText(s, text)),
    );
    if (sessions.length) groups.push({ status, sessions });
  }
  return { groups, children };
}

/** The visible slice of a group and how many are left for "Show more". */
export function pageOfGroup<T>(
  items: readonly T[],
  shown: number,
): { visible: T[]; remaining: number } {
  const visible = items.slice(0, Math.max(shown, GROUP_PAGE));
  return { visible, remaining: items.length - visible.length };
}

export interface SessionRowModel {
  id: string;
  label: string;
  description: string;
  /** Markdown-safe lines: [name, value] pairs rendered as text, never as markup. */
  tooltip: [string, string][];
  contextValue: string;
}

export interface RowLabels {
  status(status: DerivedStatus): string;
  field: Record<
    | 'status'
    | 'started'
    | 'lastActivity'
    | 'ended'
    | 'tokens'
    | 'cost'
    | 'user'
    | 'repository'
    | 'branch'
    | 'tasks',
    string
  >;
  unknownWaiting: string;
}

export function sessionRow(
  session: SessionSummary,
  labels: RowLabels,
  now = Date.now(),
): SessionRowModel {
  const description = [
    session.harness,
    session.model,
    session.repository,
    relativeTime(session.lastActivityAt ?? session.startedAt, now),
  ]
    .filter(Boolean)
    .join(' · ');
  const status = `${labels.status(session.status.status)}${session.status.outcome ? ` (${session.status.outcome})` : ''} — raw: ${session.status.raw || '∅'}`;
  const tasks = session.waitingUnknown
    ? labels.unknownWaiting
    : session.pendingTasks?.length
      ? session.pendingTasks.map((t) => `${t.title ?? t.id} (${t.viewType ?? '?'})`).join('; ')
      : undefined;
  const rows: [string, string | undefined][] = [
    [labels.field.status, status],
    [labels.field.tasks, tasks],
    [labels.field.started, session.startedAt],
    [labels.field.lastActivity, session.lastActivityAt],
    [labels.field.ended, session.endedAt],
    [labels.field.tokens, tokenLine(session)],
    [labels.field.cost, formatCost(session.estimatedCost)],
    [labels.field.user, session.user],
    [labels.field.repository, session.repository],
    [labels.field.branch, session.branch],
  ];
  return {
    id: `session:${session.connectionId}:${session.id}`,
    label: session.label,
    description,
    tooltip: rows.filter((r): r is [string, string] => Boolean(r[1])),
    contextValue: `session.${session.status.status}`,
  };
}

function tokenLine(s: SessionSummary): string | undefined {
  const parts = [
    s.inputTokens !== undefined ? `in ${formatTokens(s.inputTokens)}` : undefined,
    s.outputTokens !== undefined ? `out ${formatTokens(s.outputTokens)}` : undefined,
    s.cacheReadTokens !== undefined ? `cache read ${formatTokens(s.cacheReadTokens)}` : undefined,
    s.cacheWriteTokens !== undefined
      ? `cache write ${formatTokens(s.cacheWriteTokens)}`
      : undefined,
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : undefined;
}
