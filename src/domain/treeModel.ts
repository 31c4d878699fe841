/**
 * What the Sessions tree shows, computed without vscode so it can be unit-tested
 * and benchmarked: grouping with subagents nested under their parent, paging inside
 * a group, the text and workspace filters, grouping by project, each session row's label,
 * description and tooltip, and the rows listing a source's problems.
 */
import type { DerivedStatus } from './derivedStatus.ts';
import { DERIVED_STATUSES } from './derivedStatus.ts';
import { matchesText } from './filters.ts';
import { formatCost, formatTokens, relativeTime } from './format.ts';
import type { WorkspaceScope } from './projects.ts';
import { NO_WORKSPACE, inWorkspace, projectName, projectOf } from './projects.ts';
import type { SessionSummary } from './session.ts';
import { isResumable } from './resume.ts';

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

/**
 * Groups in the documented order, empty ones dropped, filtered by text (and by the
 * workspace when scope.only). Inside a group, sessions of the open workspace come first;
 * the order is otherwise kept.
 */
export function buildGroups(
  byStatus: ReadonlyMap<DerivedStatus, SessionSummary[]>,
  text = '',
  scope: WorkspaceScope = NO_WORKSPACE,
): SessionGroups {
  const { byStatus: visible, children } = topLevel(byStatus, text, scope);
  const groups: GroupModel[] = [];
  for (const [status, sessions] of visible) {
    groups.push({ status, sessions: workspaceFirst(sessions, scope.folders) });
  }
  return { groups, children };
}

export interface ProjectGroup {
  /** Stable key for ids and paging: the project, or '' for sessions without one. */
  key: string;
  /** Full path (local) or repository; undefined for sessions without a project. */
  project: string | undefined;
  /** Last path segment or repository name. */
  name: string | undefined;
  /** Equal to or inside an open workspace folder. */
  inWorkspace: boolean;
  /** Top-level sessions: waiting first, then in status-group order, each status in list order. */
  sessions: SessionSummary[];
  waiting: number;
  /** Latest activity of its sessions (ms since the epoch; 0 when none is known). */
  latestMs: number;
}

export interface ProjectGroups {
  projects: ProjectGroup[];
  /** Subagent sessions by parent id. */
  children: Map<string, SessionSummary[]>;
}

/**
 * Sessions grouped by project: the open workspace's projects first, then by latest
 * activity (then name); sessions without a project last. Filters as buildGroups.
 */
export function buildProjectGroups(
  byStatus: ReadonlyMap<DerivedStatus, SessionSummary[]>,
  text = '',
  scope: WorkspaceScope = NO_WORKSPACE,
): ProjectGroups {
  const { byStatus: visible, children } = topLevel(byStatus, text, scope);
  const byKey = new Map<string, ProjectGroup>();
  for (const [status, sessions] of visible) {
    for (const session of sessions) {
      const project = projectOf(session);
      const key = project ?? '';
      let group = byKey.get(key);
      if (!group) {
        group = {
          key,
          project,
          name: project === undefined ? undefined : projectName(project),
          inWorkspace: inWorkspace(project, scope.folders),
          sessions: [],
          waiting: 0,
          latestMs: 0,
        };
        byKey.set(key, group);
      }
      group.sessions.push(session);
      if (status === 'waiting') group.waiting++;
      group.latestMs = Math.max(group.latestMs, activityMs(session));
    }
  }
  const projects = [...byKey.values()].sort(
    (a, b) =>
      Number(a.key === '') - Number(b.key === '') ||
      Number(b.inWorkspace) - Number(a.inWorkspace) ||
      b.latestMs - a.latestMs ||
      (a.name ?? '').localeCompare(b.name ?? '') ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  return { projects, children };
}

/** Sessions waiting on a human in a grouping (what the connection row counts). */
export function waitingCount(grouping: SessionGroups | ProjectGroups): number {
  return 'groups' in grouping
    ? (grouping.groups.find((g) => g.status === 'waiting')?.sessions.length ?? 0)
    : grouping.projects.reduce((n, p) => n + p.waiting, 0);
}

/**
 * The top-level sessions per status (documented order, empty statuses dropped) after the
 * text and workspace filters, and every subagent of a loaded parent indexed by parent id.
 */
function topLevel(
  byStatus: ReadonlyMap<DerivedStatus, SessionSummary[]>,
  text: string,
  scope: WorkspaceScope,
): {
  byStatus: [DerivedStatus, SessionSummary[]][];
  children: Map<string, SessionSummary[]>;
} {
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
  // With no folder open there is no workspace to restrict to: everything stays visible.
  const onlyWorkspace = scope.only && scope.folders.length > 0;
  const visible: [DerivedStatus, SessionSummary[]][] = [];
  for (const status of DERIVED_STATUSES) {
    const sessions = (byStatus.get(status) ?? []).filter(
      (s) =>
        !(s.parentId && ids.has(s.parentId)) &&
        (text === '' || matchesText(s, text)) &&
        (!onlyWorkspace || inWorkspace(projectOf(s), scope.folders)),
    );
    if (sessions.length) visible.push([status, sessions]);
  }
  return { byStatus: visible, children };
}

/** Sessions of the workspace first; a stable partition, so each part keeps its order. */
function workspaceFirst(sessions: SessionSummary[], folders: readonly string[]): SessionSummary[] {
  if (folders.length === 0) return sessions;
  const inside: SessionSummary[] = [];
  const outside: SessionSummary[] = [];
  for (const s of sessions) (inWorkspace(projectOf(s), folders) ? inside : outside).push(s);
  return inside.length === 0 || outside.length === 0 ? sessions : [...inside, ...outside];
}

function activityMs(session: SessionSummary): number {
  return Date.parse(session.lastActivityAt ?? session.startedAt ?? '') || 0;
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
    // `.resumable`: the Resume in Terminal menu (local Claude Code / Codex sessions).
    contextValue: `session.${session.status.status}${isResumable(session) ? '.resumable' : ''}`,
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
