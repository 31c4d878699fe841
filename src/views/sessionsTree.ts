import * as vscode from 'vscode';
import type { DerivedStatus } from '../domain/derivedStatus.ts';
import { DERIVED_STATUSES } from '../domain/derivedStatus.ts';
import { formatCost, formatTokens, relativeTime } from '../domain/format.ts';
import type { SessionSummary } from '../domain/session.ts';
import type { ConnectionState, SessionStore } from '../store/sessionStore.ts';
import { statusIcon, statusLabel } from './statusPresentation.ts';

export type TreeNode =
  | { kind: 'connection'; connectionId: string }
  | { kind: 'group'; connectionId: string; status: DerivedStatus }
  | { kind: 'session'; session: SessionSummary }
  | { kind: 'loadMore'; connectionId: string }
  | {
      kind: 'message';
      connectionId: string;
      message: 'loading' | 'error' | 'empty' | 'invalidRows';
    };

/**
 * Connections → derived-status groups (waiting first, empty ones hidden) →
 * sessions. With one connection the connection level is skipped. Failures show
 * as nodes with an action, next to the last good data.
 */
export class SessionsTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly store: SessionStore;
  private readonly subscription: { dispose(): void };
  private readonly connectionNodes = new Map<string, TreeNode>();

  constructor(store: SessionStore) {
    this.store = store;
    this.subscription = store.onDidChange((id) => {
      const node = id ? this.connectionNodes.get(id) : undefined;
      // Per-connection refresh when the connection level is shown; a full one otherwise.
      this.changed.fire(node && this.store.connections().length > 1 ? node : undefined);
    });
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (!node) {
      const connections = this.store.connections();
      if (connections.length === 1 && connections[0])
        return this.connectionChildren(connections[0]);
      return connections.map((c) => this.connectionNode(c.config.id));
    }
    if (node.kind === 'connection') {
      const state = this.store.state(node.connectionId);
      return state ? this.connectionChildren(state) : [];
    }
    if (node.kind === 'group') {
      return (this.store.groups(node.connectionId).get(node.status) ?? []).map((session) => ({
        kind: 'session' as const,
        session,
      }));
    }
    return [];
  }

  /** Needed by TreeView.reveal (status bar → session). */
  getParent(node: TreeNode): TreeNode | undefined {
    const single = this.store.connections().length === 1;
    if (node.kind === 'session') {
      return {
        kind: 'group',
        connectionId: node.session.connectionId,
        status: node.session.status.status,
      };
    }
    if (node.kind === 'connection' || single) return undefined;
    return this.connectionNode(node.connectionId);
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'connection':
        return this.connectionItem(node.connectionId);
      case 'group':
        return this.groupItem(node);
      case 'session':
        return sessionItem(node.session);
      case 'loadMore':
        return this.loadMoreItem(node.connectionId);
      case 'message':
        return this.messageItem(node);
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
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
    const groups = this.store.groups(id);
    for (const status of DERIVED_STATUSES) {
      if (groups.get(status)?.length) children.push({ kind: 'group', connectionId: id, status });
    }
    if (state.invalidRows > 0)
      children.push({ kind: 'message', connectionId: id, message: 'invalidRows' });
    if (state.next !== undefined) children.push({ kind: 'loadMore', connectionId: id });
    if (children.length === 0)
      children.push({ kind: 'message', connectionId: id, message: 'empty' });
    return children;
  }

  private connectionItem(connectionId: string): vscode.TreeItem {
    const state = this.store.state(connectionId);
    const item = new vscode.TreeItem(
      state?.config.label ?? connectionId,
      vscode.TreeItemCollapsibleState.Expanded,
    );
    item.id = `connection:${connectionId}`;
    item.contextValue = `connection.${state?.config.kind ?? 'unknown'}`;
    item.iconPath = new vscode.ThemeIcon(state?.error ? 'debug-disconnect' : 'plug');
    const waiting = state?.sessions.filter((s) => s.status.status === 'waiting').length ?? 0;
    item.description = waiting ? vscode.l10n.t('{0} waiting', waiting) : undefined;
    return item;
  }

  private groupItem(node: Extract<TreeNode, { kind: 'group' }>): vscode.TreeItem {
    const count = this.store.groups(node.connectionId).get(node.status)?.length ?? 0;
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
    return item;
  }

  private loadMoreItem(connectionId: string): vscode.TreeItem {
    const state = this.store.state(connectionId);
    const item = new vscode.TreeItem(
      state?.loading ? vscode.l10n.t('Loading…') : vscode.l10n.t('Load more'),
    );
    item.id = `loadMore:${connectionId}`;
    if (state?.total !== undefined) {
      item.description = vscode.l10n.t('{0} of {1} loaded', state.sessions.length, state.total);
    }
    item.iconPath = new vscode.ThemeIcon('ellipsis');
    item.command = {
      command: 'agentSessions.loadMore',
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
      return new vscode.TreeItem(vscode.l10n.t('No sessions match.'));
    }
    if (node.message === 'invalidRows') {
      const item = new vscode.TreeItem(
        vscode.l10n.t('{0} rows could not be read', state?.invalidRows ?? 0),
      );
      item.iconPath = new vscode.ThemeIcon(
        'warning',
        new vscode.ThemeColor('list.warningForeground'),
      );
      item.tooltip = vscode.l10n.t(
        'The server sent rows that do not match the expected shape. See the log for details.',
      );
      item.command = { command: 'agentSessions.showLog', title: vscode.l10n.t('Show Log') };
      return item;
    }
    const error = state?.error;
    const item = new vscode.TreeItem(errorTitle(error?.kind));
    item.id = `error:${node.connectionId}`;
    item.tooltip = error?.message;
    item.description = state?.loadedOnce ? vscode.l10n.t('showing last loaded data') : undefined;
    item.iconPath = new vscode.ThemeIcon('error', new vscode.ThemeColor('list.errorForeground'));
    if (error?.kind === 'unauthorized') {
      item.contextValue = 'error.unauthorized';
      item.command = {
        command: 'agentSessions.signIn',
        title: vscode.l10n.t('Sign In'),
        arguments: [node.connectionId],
      };
    } else if (error?.kind !== 'forbidden') {
      item.contextValue = 'error.retry';
      item.command = {
        command: 'agentSessions.refresh',
        title: vscode.l10n.t('Retry'),
        arguments: [node.connectionId],
      };
    }
    return item;
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
    default:
      return vscode.l10n.t('Could not load sessions — Retry');
  }
}

export function sessionItem(session: SessionSummary, now = Date.now()): vscode.TreeItem {
  const item = new vscode.TreeItem(session.label, vscode.TreeItemCollapsibleState.None);
  item.id = `session:${session.connectionId}:${session.id}`;
  item.description = [
    session.harness,
    session.model,
    session.repository,
    relativeTime(session.lastActivityAt ?? session.startedAt, now),
  ]
    .filter(Boolean)
    .join(' · ');
  item.iconPath = statusIcon(session.status.status, session.status.outcome);
  item.contextValue = `session.${session.status.status}`;
  item.tooltip = sessionTooltip(session);
  item.command = {
    command: 'agentSessions.openSession',
    title: vscode.l10n.t('Open Session'),
    arguments: [{ kind: 'session', session }],
  };
  item.accessibilityInformation = {
    label: `${session.label}, ${statusLabel(session.status.status)}, ${item.description}`,
  };
  return item;
}

function sessionTooltip(session: SessionSummary): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.supportHtml = false;
  md.isTrusted = false;
  md.appendMarkdown(`**`).appendText(session.label).appendMarkdown(`**\n\n`);
  const rows: [string, string | undefined][] = [
    [
      vscode.l10n.t('Status'),
      `${statusLabel(session.status.status)}${session.status.outcome ? ` (${session.status.outcome})` : ''} — raw: ${session.status.raw || '∅'}`,
    ],
    [vscode.l10n.t('Started'), session.startedAt],
    [vscode.l10n.t('Last activity'), session.lastActivityAt],
    [vscode.l10n.t('Ended'), session.endedAt],
    [vscode.l10n.t('Tokens'), tokenLine(session)],
    [vscode.l10n.t('Cost'), formatCost(session.estimatedCost)],
    [vscode.l10n.t('User'), session.user],
    [vscode.l10n.t('Repository'), session.repository],
    [vscode.l10n.t('Branch'), session.branch],
  ];
  for (const [name, value] of rows) {
    if (value) md.appendMarkdown(`${name}: `).appendText(value).appendMarkdown('  \n');
  }
  return md;
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
