import * as vscode from 'vscode';
import { registerConnectionCommands } from './commands/connectionCommands.ts';
import { registerDemoCommands } from './commands/demoCommands.ts';
import { registerViewCommands } from './commands/viewCommands.ts';
import { registerWaitingCommands } from './commands/waitingCommands.ts';
import { ConnectionRegistry } from './config/connectionRegistry.ts';
import { TokenStore } from './config/tokenStore.ts';
import { applyDevConnection, applyDevLocalConnection } from './config/devConnection.ts';
import { DemoBackend } from './services/demoBackend.ts';
import { createSourceFactory, loadSourceAdapters } from './sources/sourceFactory.ts';
import { SessionStore } from './store/sessionStore.ts';
import { createRedactingLogger } from './views/redactingLog.ts';
import { SessionsTreeProvider } from './views/sessionsTree.ts';
import type { TreeNode } from './views/sessionsTree.ts';
import { WaitingStatusBar } from './views/waitingStatusBar.ts';
import { SESSION_PANEL_TYPE, SessionPanels } from './webview/sessionPanels.ts';
import { registerSessionCommands } from './commands/sessionCommands.ts';
import { registerFilterCommands } from './commands/filterCommands.ts';
import type { SessionFilters } from './domain/filters.ts';
import { Poller } from './store/poller.ts';
import { randomUUID } from 'node:crypto';
import { CompletionService } from './store/completions.ts';
import { IntentStore } from './store/intentStore.ts';
import { offerUnfinished, registerSteeringCommands } from './commands/steeringCommands.ts';
import { registerManualTaskCommands } from './commands/manualTaskCommands.ts';
import { registerUsageDashboard, type UsageDashboards } from './webview/dashboardPanel.ts';
import { registerLocalUsageCommands } from './commands/localUsageCommands.ts';
import { registerResumeCommands } from './commands/resumeCommands.ts';
import { onLocalPricesChange, readLocalPrices, warnPriceProblems } from './config/localPrices.ts';
import { notifyWaiting } from './views/waitingNotification.ts';
import { LiveLocalSessions } from './services/liveLocalSessions.ts';

/**
 * Composition root: builds the parts and wires them. No network I/O happens here;
 * the first request is made when the Sessions view asks for its children.
 */
/** What activate() returns: used by the integration tests to look inside. */
export interface ExtensionApi {
  registry: ConnectionRegistry;
  tokens: TokenStore;
  store: SessionStore;
  tree: SessionsTreeProvider;
  view: vscode.TreeView<TreeNode>;
  panels: SessionPanels;
  dashboards: UsageDashboards;
  completions: CompletionService;
  /** What activation cost this extension itself: evaluating the bundle and running activate(). */
  timing: { evaluateMs: number | undefined; activateMs: number };
}

/** Set by the bundle's first line (esbuild banner); undefined when run unbundled. */
const loadStarted = (globalThis as { __agentSessionsLoadStart?: number }).__agentSessionsLoadStart;
const loadFinished = performance.now();

export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const activateStarted = performance.now();
  const channel = vscode.window.createOutputChannel('Agent Sessions', { log: true });
  const log = createRedactingLogger(channel);
  const registry = new ConnectionRegistry();
  const tokens = new TokenStore(context.secrets);
  const createSource = createSourceFactory({
    tokens,
    log,
    extensionPath: context.extensionPath,
    version: String(context.extension.packageJSON.version ?? '0.0.0'),
    timeoutMs: () =>
      vscode.workspace.getConfiguration('agentSessions').get('requestTimeoutSeconds', 20) * 1000,
    localPrices: readLocalPrices,
    onPriceProblems: (lines) => void warnPriceProblems(lines),
  });
  const store = new SessionStore({
    createSource,
    log,
    pageSize: () => vscode.workspace.getConfiguration('agentSessions').get('pageSize', 100),
    filters: {
      get: (id) => context.globalState.get<SessionFilters>(`filters/${id}`),
      set: (id, filters) => context.globalState.update(`filters/${id}`, filters),
    },
  });
  const tree = new SessionsTreeProvider(store, {
    global: context.globalState,
    workspace: context.workspaceState,
  });
  const view = vscode.window.createTreeView('agentSessions.sessions', {
    treeDataProvider: tree,
    showCollapseAll: true,
  });
  const demo = new DemoBackend(context.extensionPath, log);
  const panels = new SessionPanels(context.extensionUri, store, {
    adapters: () => loadSourceAdapters(context.extensionPath),
    storageDir: context.globalStorageUri.fsPath,
    log,
  });
  const completions = new CompletionService({
    store,
    intents: new IntentStore(context.globalState),
    newKey: randomUUID,
  });
  const dashboards = registerUsageDashboard({
    extensionUri: context.extensionUri,
    store,
    adapters: () => loadSourceAdapters(context.extensionPath),
    log,
  });

  const syncConnections = () => {
    const all = registry.all();
    store.setConnections(all);
    void vscode.commands.executeCommand(
      'setContext',
      'agentSessions.hasConnections',
      all.length > 0,
    );
  };
  const updateView = () => {
    const count = store.waiting().length;
    view.badge = count
      ? { value: count, tooltip: vscode.l10n.t('{0} sessions waiting on you', count) }
      : undefined;
    view.description = tree.describe();
  };
  // Poll only while the view is visible: nobody pays for data nobody looks at.
  const poller = new Poller(
    async () => {
      const ids = store.connections().map((c) => c.config.id);
      await Promise.all(ids.map((id) => store.refresh(id)));
      return store.connections().every((c) => !c.error);
    },
    () => vscode.workspace.getConfiguration('agentSessions').get('pollIntervalSeconds', 60) * 1000,
  );
  poller.setActive(view.visible);

  context.subscriptions.push(
    channel,
    registry,
    view,
    tree,
    demo,
    panels,
    vscode.window.registerWebviewPanelSerializer(SESSION_PANEL_TYPE, panels),
    new WaitingStatusBar(store),
    new LiveLocalSessions(store, log),
    { dispose: () => store.dispose() },
    registry.onDidChange(syncConnections),
    store.onDidChange(updateView),
    tree.onDidChangeTreeData(updateView),
    poller,
    view.onDidChangeVisibility((e) => poller.setActive(e.visible)),
    store.onDidStartWaiting((sessions) => notifyWaiting(sessions, panels)),
    ...registerFilterCommands(store, tree),
    ...registerSteeringCommands({ store, completions }),
    ...registerManualTaskCommands(store),
    ...dashboards.disposables,
    ...registerViewCommands(store, channel, tree),
    ...registerConnectionCommands({ registry, tokens, store, createSource }),
    ...registerDemoCommands({ demo, registry, tokens }),
    ...registerWaitingCommands(store, view),
    ...registerSessionCommands(store, panels),
    ...registerResumeCommands(store),
    ...registerLocalUsageCommands(store),
    // New prices: local connections rebuild their costs with them.
    onLocalPricesChange(() => {
      for (const c of store.connections())
        if (c.config.kind === 'local') void store.reconnect(c.config.id);
    }),
  );
  syncConnections();
  void applyDevConnection(registry, tokens, log);
  applyDevLocalConnection(registry);
  // Intents left unanswered by a reload or a crash are offered, never dropped or re-sent silently.
  void offerUnfinished({ store, completions });
  const timing = {
    evaluateMs: loadStarted === undefined ? undefined : loadFinished - loadStarted,
    activateMs: performance.now() - activateStarted,
  };
  return { registry, tokens, store, tree, view, panels, dashboards, completions, timing };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
