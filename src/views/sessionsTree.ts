import * as vscode from 'vscode';
import type { DerivedStatus } from '../domain/derivedStatus.ts';
import { describeFilters } from '../domain/filters.ts';
import { PROBLEM_ROWS, problemRow } from '../domain/problems.ts';
import type { WorkspaceScope } from '../domain/projects.ts';
import { projectOf } from '../domain/projects.ts';
import type { PendingTask, SessionSummary } from '../domain/session.ts';
import type { ProjectGroup, ProjectGroups, RowLabels, SessionGroups } from '../domain/treeModel.ts';
import {
  GROUP_PAGE,
  buildGroups,
  buildProjectGroups,
  pageOfGroup,
  sessionRow,
  waitingCount,
} from '../domain/treeModel.ts';
import {
  DETAIL_MAX_LENGTH,
  markdownSurfaceText,
  plainSurfaceText,
  surfaceLabel,
} from '../domain/surfaceText.ts';
import type { SourceProblem } from '../sources/sessionSource.ts';
import type { ArchiveStore } from '../store/archiveStore.ts';
import { underArchived, withoutArchived } from '../domain/archived.ts';
import { sessionLink } from '../domain/sessionLink.ts';
import type { ConnectionState, SessionStore } from '../store/sessionStore.ts';
import { statusIcon, statusLabel } from './statusPresentation.ts';

export type GroupBy = 'status' | 'project';

export type TreeNode =
  | { kind: 'connection'; connectionId: string }
  | { kind: 'group'; connectionId: string; status: DerivedStatus }
  /** `project` is the ProjectGroup key: the project, or '' for sessions without one. */
  | { kind: 'project'; connectionId: string; project: string }
  | { kind: 'session'; session: SessionSummary }
  | { kind: 'task'; session: SessionSummary; task: PendingTask }
  /** `group` is the paging key: a status, or `project:<key>`. */
  | { kind: 'showMore'; connectionId: string; group: string; remaining: number }
  | { kind: 'loadMore'; connectionId: string }
  | { kind: 'problems'; connectionId: string }
  | { kind: 'problem'; connectionId: string; problem: SourceProblem; index: number }
  | {
      kind: 'message';
      connectionId: string;
      message: 'loading' | 'error' | 'empty' | 'invalidRows' | 'pagingRepeated' | 'moreProblems';
    };

/** Where the view's choices are remembered (ExtensionContext.globalState / workspaceState). */
export interface TreeMemory {
  /** Group by status or by project, for every window. */
  global?: vscode.Memento;
  /** "This workspace only", per workspace. */
  workspace?: vscode.Memento;
}

const GROUP_BY_KEY = 'sessionsTree.groupBy';
const WORKSPACE_ONLY_KEY = 'sessionsTree.workspaceOnly';

/**
 * Connections → derived-status groups (waiting first, empty ones hidden), or projects (the
 * open workspace's first) → sessions → their subagents. With one connection the connection
 * level is skipped. Failures and unreadable input show as nodes next to the last good data.
 */
export class SessionsTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly store: SessionStore;
  private readonly memory: TreeMemory;
  private readonly subscriptions: { dispose(): void }[];
  private readonly connectionNodes = new Map<string, TreeNode>();
  private readonly groupsCache = new Map<string, SessionGroups | ProjectGroups>();
  private readonly shownPerGroup = new Map<string, number>();
  private text = '';
  private mode: GroupBy;
  private onlyWorkspace: boolean;
  private folders: readonly string[] = workspaceFolderPaths();
  private archive: ArchiveStore | undefined;
  private archivedShown = false;

  constructor(store: SessionStore, memory: TreeMemory = {}) {
    this.store = store;
    this.memory = memory;
    this.mode = memory.global?.get<GroupBy>(GROUP_BY_KEY) === 'project' ? 'project' : 'status';
    this.onlyWorkspace = memory.workspace?.get<boolean>(WORKSPACE_ONLY_KEY) === true;
    this.subscriptions = [
      store.onDidChange((id) => {
        if (id) this.groupsCache.delete(id);
        else this.groupsCache.clear();
        const node = id ? this.connectionNodes.get(id) : undefined;
        // Per-connection refresh when the connection level is shown; a full one otherwise.
        this.changed.fire(node && this.store.connections().length > 1 ? node : undefined);
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this.folders = workspaceFolderPaths();
        this.rebuild();
      }),
    ];
    this.updateContext();
  }

  get textFilter(): string {
    return this.text;
  }

  setTextFilter(text: string): void {
    this.text = text.trim();
    this.rebuild();
  }

  get groupBy(): GroupBy {
    return this.mode;
  }

  /** Status groups (the default) or projects; remembered across windows. */
  async setGroupBy(mode: GroupBy): Promise<void> {
    if (mode === this.mode) return;
    this.mode = mode;
    this.rebuild();
    await this.memory.global?.update(GROUP_BY_KEY, mode);
  }

  /** The open workspace folders' paths (what "this workspace" means). */
  get workspaceFolders(): readonly string[] {
    return this.folders;
  }

  get workspaceOnly(): boolean {
    return this.onlyWorkspace;
  }

  /**
   * "This workspace only" on every connection. Local sessions match by working directory
   * (inside a folder); others by repository name (a folder's name). Without an open folder
   * it has no effect, so nothing is hidden.
   */
  async setWorkspaceOnly(only: boolean): Promise<void> {
    if (only === this.onlyWorkspace) return;
    this.onlyWorkspace = only;
    this.rebuild();
    await this.memory.workspace?.update(WORKSPACE_ONLY_KEY, only);
  }

  /**
   * Sessions the user archived leave the tree (with their subagents) until "Show Archived",
   * which shows them in their groups, described as archived.
   */
  useArchive(archive: ArchiveStore): { dispose(): void } {
    this.archive = archive;
    this.rebuild();
    return archive.onDidChange((connectionId) => {
      this.groupsCache.delete(connectionId);
      this.changed.fire(undefined);
    });
  }

  get showArchived(): boolean {
    return this.archivedShown;
  }

  /** For this window only: a reload shows the default tree again. */
  setShowArchived(show: boolean): void {
    if (show === this.archivedShown) return;
    this.archivedShown = show;
    this.rebuild();
  }

  /** Whether the session (or the session it belongs to) is archived. */
  isArchived(session: SessionSummary): boolean {
    const archive = this.archive;
    if (!archive) return false;
    const byId = new Map(
      (this.store.state(session.connectionId)?.sessions ?? []).map((s) => [s.id, s]),
    );
    return underArchived(session, (id) => archive.isArchived(session.connectionId, id), byId);
  }

  /** "Show more" inside a group: the next GROUP_PAGE rows, built only when asked for. */
  showMore(connectionId: string, group: string): void {
    const key = `${connectionId}:${group}`;
    this.shownPerGroup.set(key, (this.shownPerGroup.get(key) ?? GROUP_PAGE) + GROUP_PAGE);
    this.changed.fire(undefined);
  }

  /** A one-line summary of filters for the view's description. */
  describe(): string | undefined {
    const parts = this.store
      .connections()
      .map((c) => describeFilters(c.filters))
      .filter(Boolean);
    if (this.scope().only) parts.push(vscode.l10n.t('this workspace only'));
    if (this.text) parts.push(vscode.l10n.t('matching "{0}"', this.text));
    if (this.archivedShown) parts.push(vscode.l10n.t('archived shown'));
    return parts.length ? parts.join(' · ') : undefined;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (!node) {
      const connections = this.store.connections();
      if (connections.length === 1 && connections[0])
        return this.connectionChildren(connections[0]);
      return connections.map((c) => this.connectionNode(c.config.id));
    }
    switch (node.kind) {
      case 'connection': {
        const state = this.store.state(node.connectionId);
        return state ? this.connectionChildren(state) : [];
      }
      case 'group': {
        const group = this.statusGroups(node.connectionId)?.groups.find(
          (g) => g.status === node.status,
        );
        return group ? this.page(node.connectionId, node.status, group.sessions) : [];
      }
      case 'project': {
        const group = this.projectGroup(node.connectionId, node.project);
        return group ? this.page(node.connectionId, `project:${node.project}`, group.sessions) : [];
      }
      case 'session': {
        // Manual tasks waiting on a human first, then sub-agent sessions.
        const tasks: TreeNode[] = (node.session.pendingTasks ?? []).map((task) => ({
          kind: 'task',
          session: node.session,
          task,
        }));
        const children = this.groups(node.session.connectionId).children.get(node.session.id) ?? [];
        return [...tasks, ...children.map((session): TreeNode => ({ kind: 'session', session }))];
      }
      case 'problems': {
        const problems = this.store.state(node.connectionId)?.problems ?? [];
        const rows: TreeNode[] = problems.slice(0, PROBLEM_ROWS).map((problem, index) => ({
          kind: 'problem',
          connectionId: node.connectionId,
          problem,
          index,
        }));
        if (problems.length > PROBLEM_ROWS) {
          rows.push({ kind: 'message', connectionId: node.connectionId, message: 'moreProblems' });
        }
        return rows;
      }

      default:
        return [];
    }
  }

  /** Needed by TreeView.reveal (status bar → session). */
  getParent(node: TreeNode): TreeNode | undefined {
    const single = this.store.connections().length === 1;
    if (node.kind === 'session') {
      // VS Code may hold an older object for this row: look it up again by id.
      const grouping = this.groups(node.session.connectionId);
      const { children } = grouping;
      const all = [...topLevelOf(grouping), ...[...children.values()].flat()];
      const current = all.find((s) => s.id === node.session.id) ?? node.session;
      const nested =
        current.parentId && children.get(current.parentId)?.some((s) => s.id === current.id);
      const parent = nested ? all.find((s) => s.id === current.parentId) : undefined;
      if (parent) return { kind: 'session', session: parent };
      if ('projects' in grouping) {
        const project = projectOf(current) ?? '';
        return { kind: 'project', connectionId: current.connectionId, project };
      }
      return { kind: 'group', connectionId: current.connectionId, status: current.status.status };
    }
    if (node.kind === 'task') return { kind: 'session', session: node.session };
    if (node.kind === 'problem' || (node.kind === 'message' && node.message === 'moreProblems'))
      return { kind: 'problems', connectionId: node.connectionId };
    if (node.kind === 'connection' || single) return undefined;
    return this.connectionNode(node.connectionId);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'connection':
        return this.connectionItem(node.connectionId);
      case 'group':
        return this.groupItem(node);
      case 'project':
        return this.projectItem(node);
      case 'session':
        return sessionItem(
          node.session,
          this.groups(node.session.connectionId).children.has(node.session.id),
          this.actionsFor(node.session),
        );
      case 'task':
        return taskItem(node.session, node.task);
      case 'showMore':
        return showMoreItem(node);
      case 'loadMore':
        return this.loadMoreItem(node.connectionId);
      case 'problems':
        return this.problemsItem(node.connectionId);
      case 'problem':
        return problemItem(node);
      case 'message':
        return this.messageItem(node);
    }
  }

  dispose(): void {
    for (const subscription of this.subscriptions) subscription.dispose();
    this.changed.dispose();
  }

  /** contextValue flags that enable the steering menus only where the backend allows them. */
  private actionsFor(session: SessionSummary): string[] {
    const state = this.store.state(session.connectionId);
    const flags: string[] = [];
    const open = session.status.status !== 'finished';
    if (open && state?.capabilities?.complete) flags.push('completable');
    if (state?.capabilities?.interrupt && session.status.raw === 'running')
      flags.push('interruptible');
    if (session.pendingTasks?.some((t) => t.completionSupported)) flags.push('tasks');
    // Show Changes reads the transcript: local sessions and backends that keep one.
    if (state?.capabilities?.transcripts) flags.push('transcript');
    // Archive and Unarchive; Copy Link only where the backend gave the session a web address.
    flags.push(
      this.archive?.isArchived(session.connectionId, session.id) ? 'archived' : 'archivable',
    );
    if (sessionLink(session)) flags.push('link');
    return flags;
  }

  /** The connection's sessions grouped the current way (status or project), cached until a change. */
  private groups(connectionId: string): SessionGroups | ProjectGroups {
    let groups = this.groupsCache.get(connectionId);
    if (!groups) {
      const all = this.store.groups(connectionId);
      const archive = this.archive;
      const byStatus =
        archive && !this.archivedShown && archive.count(connectionId) > 0
          ? withoutArchived(all, (id) => archive.isArchived(connectionId, id))
          : all;
      groups =
        this.mode === 'project'
          ? buildProjectGroups(byStatus, this.text, this.scope())
          : buildGroups(byStatus, this.text, this.scope());
      this.groupsCache.set(connectionId, groups);
    }
    return groups;
  }

  private statusGroups(connectionId: string): SessionGroups | undefined {
    const groups = this.groups(connectionId);
    return 'groups' in groups ? groups : undefined;
  }

  private projectGroup(connectionId: string, key: string): ProjectGroup | undefined {
    const groups = this.groups(connectionId);
    return 'projects' in groups ? groups.projects.find((p) => p.key === key) : undefined;
  }

  /** One page of a group's sessions, with a "Show more" row when some are left. */
  private page(connectionId: string, group: string, sessions: SessionSummary[]): TreeNode[] {
    const shown = this.shownPerGroup.get(`${connectionId}:${group}`) ?? GROUP_PAGE;
    const { visible, remaining } = pageOfGroup(sessions, shown);
    const rows: TreeNode[] = visible.map((session) => ({ kind: 'session', session }));
    if (remaining > 0) rows.push({ kind: 'showMore', connectionId, group, remaining });
    return rows;
  }

  private scope(): WorkspaceScope {
    return { folders: this.folders, only: this.onlyWorkspace && this.folders.length > 0 };
  }

  /** Groupings, the description and the title-bar toggles follow a changed choice. */
  private rebuild(): void {
    this.groupsCache.clear();
    this.updateContext();
    this.changed.fire(undefined);
  }

  private updateContext(): void {
    void vscode.commands.executeCommand(
      'setContext',
      'sessionInspector.groupByProject',
      this.mode === 'project',
    );
    void vscode.commands.executeCommand(
      'setContext',
      'sessionInspector.workspaceOnly',
      this.onlyWorkspace,
    );
    void vscode.commands.executeCommand(
      'setContext',
      'sessionInspector.showArchived',
      this.archivedShown,
    );
  }

  private connectionNode(connectionId: string): TreeNode {
    let node = this.connectionNodes.get(connectionId);
    if (!node) {
      node = { kind: 'connection', connectionId };
      this.connectionNodes.set(connectionId, node);
    }
    return node;
  }

  private connectionChildren(state: ConnectionState): TreeNode[] {
    const id = state.config.id;
    if (!state.loadedOnce && !state.error) {
      if (!state.loading) void this.store.refresh(id);
      return [{ kind: 'message', connectionId: id, message: 'loading' }];
    }
    const children: TreeNode[] = [];
    if (state.error) children.push({ kind: 'message', connectionId: id, message: 'error' });
    const groups = this.groups(id);
    if ('groups' in groups) {
      for (const group of groups.groups) {
        children.push({ kind: 'group', connectionId: id, status: group.status });
      }
    } else {
      for (const project of groups.projects) {
        children.push({ kind: 'project', connectionId: id, project: project.key });
      }
    }
    if (state.invalidRows > 0)
      children.push({ kind: 'message', connectionId: id, message: 'invalidRows' });
    if (state.pagingRepeated.length > 0)
      children.push({ kind: 'message', connectionId: id, message: 'pagingRepeated' });
    const empty = children.length === 0 && state.next === undefined;
    if (empty) children.push({ kind: 'message', connectionId: id, message: 'empty' });
    // After the sessions: unreadable input matters, but less than who is waiting.
    if (state.problems.length > 0) children.push({ kind: 'problems', connectionId: id });
    if (state.next !== undefined) children.push({ kind: 'loadMore', connectionId: id });
    return children;
  }

  private connectionItem(connectionId: string): vscode.TreeItem {
    const state = this.store.state(connectionId);
    const item = new vscode.TreeItem(
      surfaceLabel(state?.config.label ?? connectionId),
      vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = `connection:${connectionId}`;
    // `.usage`: the connection offers a usage dashboard (the context menu shows it).
    item.contextValue = `connection.${state?.config.kind ?? 'unknown'}${state?.capabilities?.usage ? '.usage' : ''}`;
    item.iconPath = new vscode.ThemeIcon(state?.error ? 'debug-disconnect' : 'plug');
    const waiting = waitingCount(this.groups(connectionId));
    const filters = state ? describeFilters(state.filters) : '';
    // Saved rows shown while the source checks them (a window opening on local transcripts).
    const checking = state?.provisional ? vscode.l10n.t('checking…') : '';
    item.description = [waiting ? vscode.l10n.t('{0} waiting', waiting) : '', filters, checking]
      .filter(Boolean)
      .join(' · ');
    const where = plainSurfaceText(state?.config.url ?? state?.config.kind);
    item.tooltip = checking
      ? `${where}\n${vscode.l10n.t('Sessions as this machine last listed them; checking the transcript folders for changes.')}`
      : where;
    return item;
  }

  private groupItem(node: Extract<TreeNode, { kind: 'group' }>): vscode.TreeItem {
    const count =
      this.statusGroups(node.connectionId)?.groups.find((g) => g.status === node.status)?.sessions
        .length ?? 0;
    const item = new vscode.TreeItem(
      statusLabel(node.status),
      node.status === 'waiting' || node.status === 'active' || node.status === 'error'
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = `group:${node.connectionId}:${node.status}`;
    item.description = String(count);
    item.iconPath = statusIcon(node.status);
    item.contextValue = `group.${node.status}`;
    item.accessibilityInformation = { label: `${statusLabel(node.status)}, ${count}` };
    return item;
  }

  private projectItem(node: Extract<TreeNode, { kind: 'project' }>): vscode.TreeItem {
    const group = this.projectGroup(node.connectionId, node.project);
    const count = group?.sessions.length ?? 0;
    const waiting = group?.waiting ?? 0;
    // Project paths and repository names come from the sessions (backend text).
    const name = group?.name !== undefined ? surfaceLabel(group.name) : vscode.l10n.t('No project');
    const item = new vscode.TreeItem(
      name,
      group?.inWorkspace || waiting > 0
        ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = `project:${node.connectionId}:${node.project}`;
    const counts = [
      String(count),
      waiting ? vscode.l10n.t('{0} waiting', waiting) : '',
      group?.inWorkspace ? vscode.l10n.t('this workspace') : '',
    ].filter(Boolean);
    // The full path (or repository) when it says more than the name.
    const where =
      group?.project && group.project !== group.name
        ? plainSurfaceText(group.project, { maxLength: DETAIL_MAX_LENGTH })
        : '';
    item.description = [...counts, where].filter(Boolean).join(' · ');
    item.tooltip = [
      group?.project !== undefined
        ? plainSurfaceText(group.project)
        : vscode.l10n.t('Sessions that name no working directory or repository'),
      vscode.l10n.t('{0} sessions, {1} waiting', count, waiting),
      group?.inWorkspace ? vscode.l10n.t('In the open workspace') : '',
    ]
      .filter(Boolean)
      .join('\n');
    item.iconPath =
      waiting > 0
        ? new vscode.ThemeIcon(
            group?.inWorkspace ? 'root-folder' : 'folder',
            new vscode.ThemeColor('charts.yellow'),
          )
        : new vscode.ThemeIcon(group?.inWorkspace ? 'root-folder' : 'folder');
    item.contextValue = group?.inWorkspace ? 'project.workspace' : 'project';
    item.accessibilityInformation = {
      label: [name, ...counts].join(', '),
    };
    return item;
  }

  private problemsItem(connectionId: string): vscode.TreeItem {
    const count = this.store.state(connectionId)?.problems.length ?? 0;
    const item = new vscode.TreeItem(
      count === 1
        ? vscode.l10n.t('1 problem in the transcript files')
        : vscode.l10n.t('{0} problems in the transcript files', count),
      vscode.TreeItemCollapsibleState.Collapsed,
    );
    item.id = `problems:${connectionId}`;
    item.iconPath = new vscode.ThemeIcon(
      'warning',
      new vscode.ThemeColor('list.warningForeground'),
    );
    item.tooltip = vscode.l10n.t(
      'Lines or files that could not be read, or were read in part. Nothing else is hidden: the sessions show what could be read. The log lists every problem.',
    );
    item.contextValue = 'problems';
    return item;
  }

  private loadMoreItem(connectionId: string): vscode.TreeItem {
    const state = this.store.state(connectionId);
    const item = new vscode.TreeItem(
      state?.loading ? vscode.l10n.t('Loading…') : vscode.l10n.t('Load more'),
    );
    item.id = `loadMore:${connectionId}`;
    if (state?.total !== undefined) {
      // A total below what is already loaded is the server contradicting itself, not a count.
      item.description =
        state.total < state.sessions.length
          ? vscode.l10n.t(
              '{0} loaded, yet the server reports {1} in all: its counts are inconsistent',
              state.sessions.length,
              state.total,
            )
          : vscode.l10n.t('{0} of {1} loaded', state.sessions.length, state.total);
    }
    item.iconPath = new vscode.ThemeIcon('ellipsis');
    item.command = {
      command: 'sessionInspector.loadMore',
      title: vscode.l10n.t('Load more'),
      arguments: [connectionId],
    };
    return item;
  }

  private messageItem(node: Extract<TreeNode, { kind: 'message' }>): vscode.TreeItem {
    const state = this.store.state(node.connectionId);
    if (node.message === 'loading') {
      const item = new vscode.TreeItem(vscode.l10n.t('Loading sessions…'));
      item.iconPath = new vscode.ThemeIcon('loading~spin');
      return item;
    }
    if (node.message === 'empty') {
      return new vscode.TreeItem(
        this.text || this.scope().only || (state && describeFilters(state.filters))
          ? vscode.l10n.t('No sessions match the filters.')
          : vscode.l10n.t('No sessions yet.'),
      );
    }
    if (node.message === 'moreProblems') {
      const count = (state?.problems.length ?? 0) - PROBLEM_ROWS;
      const item = new vscode.TreeItem(vscode.l10n.t('and {0} more — see the log', count));
      item.id = `moreProblems:${node.connectionId}`;
      item.iconPath = new vscode.ThemeIcon('output');
      item.command = { command: 'sessionInspector.showLog', title: vscode.l10n.t('Show Log') };
      return item;
    }
    if (node.message === 'invalidRows') return invalidRowsItem(state);
    if (node.message === 'pagingRepeated') return pagingRepeatedItem(node.connectionId, state);
    return errorItem(node.connectionId, state);
  }
}

/** Rows the server sent that failed validation: a warning that leads to the log. */
function invalidRowsItem(state: ConnectionState | undefined): vscode.TreeItem {
  const item = new vscode.TreeItem(
    vscode.l10n.t('{0} rows could not be read', state?.invalidRows ?? 0),
  );
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  item.tooltip = vscode.l10n.t(
    'The server sent rows that do not match the expected shape. See the log for details.',
  );
  item.command = { command: 'sessionInspector.showLog', title: vscode.l10n.t('Show Log') };
  return item;
}

/** Paging stopped because the server repeated pages: a warning naming the listings. */
function pagingRepeatedItem(
  connectionId: string,
  state: ConnectionState | undefined,
): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t("The server's paging repeated itself"));
  item.id = `pagingRepeated:${connectionId}`;
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  // The listings' names (agent keys) come from the server: a plain-text tooltip.
  const where = plainSurfaceText((state?.pagingRepeated ?? []).slice(0, 10).join(', '), {
    maxLength: DETAIL_MAX_LENGTH,
  });
  item.tooltip = [
    vscode.l10n.t(
      'The server answered a request for more sessions with pages already read, so paging stopped there. The sessions read before that are shown; more may exist.',
    ),
    vscode.l10n.t('Where: {0}', where),
  ].join('\n\n');
  item.command = { command: 'sessionInspector.showLog', title: vscode.l10n.t('Show Log') };
  return item;
}

/** The connection's load error, with the action that can fix it as the item's command. */
function errorItem(connectionId: string, state: ConnectionState | undefined): vscode.TreeItem {
  const error = state?.error;
  const item = new vscode.TreeItem(errorTitle(error?.kind));
  item.id = `error:${connectionId}`;
  // The server's own words: plain text (a string tooltip), cleaned and cut.
  item.tooltip = error ? plainSurfaceText(error.message, { multiline: true }) : undefined;
  item.description = state?.loadedOnce ? vscode.l10n.t('showing last loaded data') : undefined;
  item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
  setErrorAction(item, connectionId, error?.kind);
  return item;
}

/** Sign In, Edit Connection, Edit Filters or Retry, by the error's kind; none when forbidden. */
function setErrorAction(
  item: vscode.TreeItem,
  connectionId: string,
  kind: string | undefined,
): void {
  if (kind === 'unauthorized') {
    item.contextValue = 'error.unauthorized';
    item.command = {
      command: 'sessionInspector.signIn',
      title: vscode.l10n.t('Sign In'),
      arguments: [connectionId],
    };
  } else if (kind === 'notFound') {
    // Nothing at that address (a URL path, an agent key): the connection needs editing,
    // though Retry stays on the item's menu for a record that may come back.
    item.contextValue = 'error.retry';
    item.command = {
      command: 'sessionInspector.editConnection',
      title: vscode.l10n.t('Edit Connection'),
      arguments: [connectionId],
    };
  } else if (kind === 'invalidFilter') {
    item.contextValue = 'error.filter';
    item.command = {
      command: 'sessionInspector.setFilters',
      title: vscode.l10n.t('Edit Filters'),
      arguments: [connectionId],
    };
  } else if (kind !== 'forbidden') {
    item.contextValue = 'error.retry';
    item.command = {
      command: 'sessionInspector.refresh',
      title: vscode.l10n.t('Retry'),
      arguments: [connectionId],
    };
  }
}

function errorTitle(kind: string | undefined): string {
  switch (kind) {
    case 'unauthorized':
      return vscode.l10n.t('Sign in to see sessions');
    case 'forbidden':
      return vscode.l10n.t('Monitoring is not enabled for this account');
    case 'timeout':
      return vscode.l10n.t('The server did not answer in time — Retry');
    case 'rateLimited':
      return vscode.l10n.t('Rate limited by the server — Retry');
    case 'invalidResponse':
      return vscode.l10n.t("The server's answer could not be read — Retry");
    case 'notFound':
      return vscode.l10n.t('Not found on the server (404) — check the URL and agent keys');
    case 'invalidFilter':
      return vscode.l10n.t('The filters cannot be used — Edit Filters');
    default:
      return vscode.l10n.t('Could not load sessions — Retry');
  }
}

function taskItem(session: SessionSummary, task: PendingTask): vscode.TreeItem {
  const item = new vscode.TreeItem(surfaceLabel(task.title ?? task.id) || task.id);
  item.id = `task:${session.connectionId}:${session.id}:${task.id}`;
  item.description = [
    task.viewType !== undefined ? surfaceLabel(task.viewType) : undefined,
    task.waitingAgeSeconds !== undefined
      ? vscode.l10n.t('waiting {0} min', Math.round(task.waitingAgeSeconds / 60))
      : undefined,
  ]
    .filter(Boolean)
    .join(' · ');
  item.iconPath = new vscode.ThemeIcon('tasklist', new vscode.ThemeColor('charts.yellow'));
  item.contextValue = task.completionSupported ? 'task.completable' : 'task.form';
  item.tooltip = task.completionSupported
    ? vscode.l10n.t('A manual task waiting on you. Click to complete it.')
    : vscode.l10n.t(
        'This task uses a form that cannot be completed from VS Code; open it in the platform.',
      );
  if (task.completionSupported) {
    item.command = {
      command: 'sessionInspector.completeManualTask',
      title: vscode.l10n.t('Complete Manual Task'),
      arguments: [{ kind: 'task', session, task }],
    };
  }
  return item;
}

function showMoreItem(node: Extract<TreeNode, { kind: 'showMore' }>): vscode.TreeItem {
  const item = new vscode.TreeItem(vscode.l10n.t('Show more ({0} more)', node.remaining));
  item.id = `showMore:${node.connectionId}:${node.group}`;
  item.iconPath = new vscode.ThemeIcon('ellipsis');
  item.command = {
    command: 'sessionInspector.showMoreInGroup',
    title: vscode.l10n.t('Show more'),
    arguments: [node.connectionId, node.group],
  };
  return item;
}

/** One problem: its message, where it is; a file opens at the line. Paths are plain text. */
function problemItem(node: Extract<TreeNode, { kind: 'problem' }>): vscode.TreeItem {
  const row = problemRow(node.problem);
  const item = new vscode.TreeItem(plainSurfaceText(row.label, { maxLength: DETAIL_MAX_LENGTH }));
  item.id = `problem:${node.connectionId}:${node.index}`;
  item.description = surfaceLabel(row.description);
  item.tooltip = plainSurfaceText(row.tooltip, { multiline: true });
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
  item.contextValue = 'problem';
  if (row.file) {
    const at = (row.line ?? 1) - 1;
    item.command = {
      command: 'vscode.open',
      title: vscode.l10n.t('Open File'),
      arguments: [
        vscode.Uri.file(row.file),
        { selection: new vscode.Range(at, 0, at, 0), preview: true },
      ],
    };
  }
  return item;
}

function topLevelOf(grouping: SessionGroups | ProjectGroups): SessionSummary[] {
  return 'groups' in grouping
    ? grouping.groups.flatMap((g) => g.sessions)
    : grouping.projects.flatMap((p) => p.sessions);
}

/** Paths of the open workspace folders: the file-system path, or the remote path. */
function workspaceFolderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) =>
    f.uri.scheme === 'file' ? f.uri.fsPath : f.uri.path,
  );
}

const rowLabels = (): RowLabels => ({
  status: statusLabel,
  field: {
    status: vscode.l10n.t('Status'),
    tasks: vscode.l10n.t('Manual tasks'),
    started: vscode.l10n.t('Started'),
    lastActivity: vscode.l10n.t('Last activity'),
    ended: vscode.l10n.t('Ended'),
    tokens: vscode.l10n.t('Tokens'),
    cost: vscode.l10n.t('Cost'),
    user: vscode.l10n.t('User'),
    repository: vscode.l10n.t('Repository'),
    branch: vscode.l10n.t('Branch'),
  },
  unknownWaiting: vscode.l10n.t('unknown — the backend could not look them up'),
});

export function sessionItem(
  session: SessionSummary,
  hasChildren = false,
  actions: string[] = [],
  now = Date.now(),
): vscode.TreeItem {
  const row = sessionRow(session, rowLabels(), now);
  // Every text of the row is the backend's: cleaned for the label, description and tooltip.
  const label = surfaceLabel(row.label) || surfaceLabel(session.id);
  const archived = actions.includes('archived');
  const description = [
    archived ? vscode.l10n.t('archived') : '',
    plainSurfaceText(row.description, { maxLength: DETAIL_MAX_LENGTH }),
  ]
    .filter(Boolean)
    .join(' · ');
  const item = new vscode.TreeItem(
    label,
    hasChildren || (session.pendingTasks?.length ?? 0) > 0
      ? vscode.TreeItemCollapsibleState.Collapsed
      : vscode.TreeItemCollapsibleState.None,
  );
  item.id = row.id;
  item.description = description;
  item.iconPath = statusIcon(session.status.status, session.status.outcome);
  // e.g. "session.waiting.completable.tasks": menus match with regular expressions.
  item.contextValue = [row.contextValue, ...actions].join('.');
  item.tooltip = sessionTooltip(label, row.tooltip);
  item.accessibilityInformation = {
    label: `${label}, ${statusLabel(session.status.status)}, ${description}`,
  };
  item.command = {
    command: 'sessionInspector.openSession',
    title: vscode.l10n.t('Open Session'),
    arguments: [{ kind: 'session', session }],
  };
  return item;
}

/**
 * The session's tooltip: untrusted Markdown without HTML or theme icons, every value
 * through markdownSurfaceText. (MarkdownString.appendText leaves `<`, `&` and `:` alone,
 * so a URL in a value became a link that showed escape backslashes.)
 */
function sessionTooltip(label: string, lines: [string, string][]): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString();
  tooltip.isTrusted = false;
  tooltip.supportHtml = false;
  tooltip.supportThemeIcons = false;
  tooltip.appendMarkdown(`**${markdownSurfaceText(label)}**\n\n`);
  for (const [name, value] of lines) {
    const text = markdownSurfaceText(value, { maxLength: DETAIL_MAX_LENGTH });
    tooltip.appendMarkdown(`${markdownSurfaceText(name)}: ${text}  \n`);
  }
  return tooltip;
}
