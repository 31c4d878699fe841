import * as vscode from 'vscode';
import { registerConnectionCommands } from './commands/connectionCommands.ts';
import { registerDemoCommands } from './commands/demoCommands.ts';
import { registerViewCommands } from './commands/viewCommands.ts';
import { registerWaitingCommands } from './commands/waitingCommands.ts';
import { ConnectionRegistry } from './config/connectionRegistry.ts';
import { TokenStore } from './config/tokenStore.ts';
import { applyDevConnection, applyDevLocalConnection } from './config/devConnection.ts';
import { DemoBackend } from './background/demoBackend.ts';
import { createSourceFactory, loadSourceAdapters } from './sources/sourceFactory.ts';
import { sourceOperation } from './sources/sessionSource.ts';
import { SessionStore } from './store/sessionStore.ts';
import { createRedactingLogger } from './views/redactingLog.ts';
import { SessionsTreeProvider } from './views/sessionsTree.ts';
import type { TreeNode } from './views/sessionsTree.ts';
import { WaitingStatusBar } from './views/waitingStatusBar.ts';
import { SESSION_PANEL_TYPE, SessionPanels } from './webview/sessionPanels.ts';
import { registerSessionCommands } from './commands/sessionCommands.ts';
import { registerFilterCommands } from './commands/filterCommands.ts';
import type { SessionFilters } from './domain/filters.ts';
import type { SessionSummary } from './domain/session.ts';
import { Poller } from './store/poller.ts';
import { randomUUID } from 'node:crypto';
import { CompletionService } from './store/completions.ts';
import { IntentStore } from './store/intentStore.ts';
import { offerUnfinished, registerSteeringCommands } from './commands/steeringCommands.ts';
import { registerManualTaskCommands } from './commands/manualTaskCommands.ts';
import {
  DASHBOARD_COMMAND,
  registerUsageDashboard,
  type UsageDashboards,
} from './webview/dashboardPanel.ts';
import { registerLocalUsageCommands } from './commands/localUsageCommands.ts';
import { registerResumeCommands } from './commands/resumeCommands.ts';
import {
  registerSearchCommands,
  SEARCH_VIEW,
  SearchResultsView,
} from './commands/searchCommands.ts';
import type { SearchNode } from './views/searchResultsTree.ts';
import { loadCommandBodies } from './commands/lazyBodies.ts';
import type { SearchSummary } from './sources/search/sessionSearch.ts';
import { registerChangesCommands } from './commands/changesCommands.ts';
import { registerExportCommands } from './commands/exportCommands.ts';
import { registerSessionActionCommands } from './commands/sessionActionCommands.ts';
import { ArchiveStore } from './store/archiveStore.ts';
import { underArchived } from './domain/archived.ts';
import { readLocalPrices } from './config/localPrices.ts';
import { onLocalSettingsChange, readLocalFolders } from './config/localFolders.ts';
import { notifyWaiting } from './views/waitingNotification.ts';
import { warnPriceProblems } from './views/priceWarning.ts';
import { LiveLocalSessions } from './background/liveLocalSessions.ts';
import { countWaiting } from './domain/waitingCount.ts';
import { archivedNote, waitingLabel } from './views/waitingLabel.ts';
import { migrateLegacyState, type MigrationReport } from './config/legacyMigration.ts';
import type { Logger } from './util/logger.ts';

/**
 * Composition root: builds the parts and wires them. No network I/O happens here; the
 * first request is made when the Sessions view asks for its children, or by the
 * background poll shortly after startup when the view is hidden.
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
  /** The waiting count in the status bar. */
  statusBar: WaitingStatusBar;
  /** Search Sessions… results, and a promise for the search under way (tests). */
  search: {
    tree: SearchResultsView;
    view: vscode.TreeView<SearchNode>;
    idle: () => Promise<SearchSummary | undefined>;
  };
  /** Sessions the user archived (per connection, in global state). */
  archive: ArchiveStore;
  /** Settings and tokens moved from the old `agentSessions.` names (settles before the first listing). */
  migration: Promise<MigrationReport>;
  /** Runs the same migration again (the upgrade test seeds old names, then calls this). */
  migrateLegacy: () => Promise<MigrationReport>;
  /** The extension's secret storage and user-data folder, for the upgrade test's seeding. */
  secrets: vscode.SecretStorage;
  globalStorageUri: vscode.Uri;
  /** What activation cost this extension itself: evaluating the bundle and running activate(). */
  timing: { evaluateMs: number | undefined; activateMs: number };
}

/** How long after activation the hidden view's first waiting count is loaded. */
const BACKGROUND_FIRST_DELAY_MS = 2_000;

/** Set by the bundle's first line (esbuild banner); undefined when run unbundled. */
const loadStarted = (globalThis as { __sessionInspectorLoadStart?: number })
  .__sessionInspectorLoadStart;
const loadFinished = performance.now();

// Longer than other functions on purpose: the composition root lists what is built and
// registered in one place, read top to bottom; parts with logic of their own are below.
export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const activateStarted = performance.now();
  const channel = vscode.window.createOutputChannel('Session Inspector', { log: true });
  const log = createRedactingLogger(channel);
  const registry = new ConnectionRegistry();
  const tokens = new TokenStore(context.secrets);
  const { createSource, store } = createStore(context, tokens, log);
  const tree = new SessionsTreeProvider(store, {
    global: context.globalState,
    workspace: context.workspaceState,
  });
  // Archived sessions leave the default tree and the waiting count ("not my concern").
  const archive = new ArchiveStore(context.globalState);
  store.setNotCounted((session) =>
    underArchived(session, (id) => archive.isArchived(session.connectionId, id)),
  );
  const view = vscode.window.createTreeView('sessionInspector.sessions', {
    treeDataProvider: tree,
    showCollapseAll: true,
  });
  const demo = new DemoBackend(context.extensionPath, log);
  const panels = new SessionPanels(context.extensionUri, store, {
    adapters: () => loadSourceAdapters(context.extensionPath),
    storageDir: context.globalStorageUri.fsPath,
    log,
    isArchived: (session) => tree.isArchived(session),
  });
  // Commands and views sit below the webview host: they get its opener, not the host.
  const openPanel = (session: SessionSummary) => panels.open(session);
  const search = createSearch(context, store, log, panels);
  const completions = new CompletionService({
    store,
    intents: new IntentStore(context.globalState),
    newKey: randomUUID,
  });
  const statusBar = new WaitingStatusBar(store);
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
      'sessionInspector.hasConnections',
      all.length > 0,
    );
  };
  const polling = createPolling(store);

  context.subscriptions.push(
    channel,
    registry,
    view,
    tree,
    demo,
    panels,
    vscode.window.registerWebviewPanelSerializer(SESSION_PANEL_TYPE, panels),
    statusBar,
    new LiveLocalSessions(store, log),
    { dispose: () => store.dispose() },
    registry.onDidChange(syncConnections),
    ...showWaitingOnView({ store, tree, view, archive, statusBar }),
    ...polling.disposables,
    view.onDidChangeVisibility((e) => polling.followVisibility(e.visible)),
    store.onDidStartWaiting((sessions) => notifyWaiting(sessions, openPanel)),
    ...registerFilterCommands(store, tree),
    ...registerSteeringCommands({ store, completions }),
    ...registerManualTaskCommands(store),
    ...dashboards.disposables,
    ...registerViewCommands(store, channel, tree),
    ...registerConnectionCommands({ registry, tokens, store, createSource }),
    ...registerDemoCommands({ demo, registry, tokens, memory: context.globalState }),
    ...registerWaitingCommands(store, view),
    ...registerSessionCommands(store, openPanel),
    ...search.disposables,
    ...registerResumeCommands(store),
    ...registerLazyCommands(context, { store, tree, archive, log }),
    tree.useArchive(archive),
    ...registerLocalUsageCommands(store, (connectionId) =>
      vscode.commands.executeCommand(DASHBOARD_COMMAND, connectionId),
    ),
    // New prices or transcript folders: local connections are built again with them.
    onLocalSettingsChange(() => {
      for (const c of store.connections())
        if (sourceOperation(store.source(c.config.id), 'localFiles'))
          void store.reconnect(c.config.id);
    }),
  );
  const { migration, migrateLegacy } = startUp(context, {
    registry,
    tokens,
    store,
    completions,
    log,
    syncConnections,
    // Activation comes with onStartupFinished (the workbench is restored): the first
    // background load follows shortly, loading the sources bundle only if connections exist.
    firstLoad: () => polling.followVisibility(view.visible, BACKGROUND_FIRST_DELAY_MS),
  });
  const timing = {
    evaluateMs: loadStarted === undefined ? undefined : loadFinished - loadStarted,
    activateMs: performance.now() - activateStarted,
  };
  return {
    registry,
    tokens,
    store,
    tree,
    view,
    panels,
    dashboards,
    completions,
    statusBar,
    archive,
    migration,
    migrateLegacy,
    secrets: context.secrets,
    globalStorageUri: context.globalStorageUri,
    search: { tree: search.tree, view: search.view, idle: search.idle },
    timing,
  };
}

/**
 * After everything is registered: the connections, the development ones, unanswered
 * intents, the move of old settings, then the first load.
 */
function startUp(
  context: vscode.ExtensionContext,
  parts: {
    registry: ConnectionRegistry;
    tokens: TokenStore;
    store: SessionStore;
    completions: CompletionService;
    log: Logger;
    syncConnections: () => void;
    firstLoad: () => void;
  },
): { migration: Promise<MigrationReport>; migrateLegacy: () => Promise<MigrationReport> } {
  const { registry, tokens, store, completions, log } = parts;
  const migrateLegacy = () =>
    migrateLegacyState({
      secrets: context.secrets,
      newTokenKey: TokenStore.key,
      memory: context.globalState,
      log,
    }).catch((error: unknown): MigrationReport => {
      log.warn(`moving old settings failed: ${(error as Error).message}`);
      return { settings: [], tokens: 0, movedTokenConnections: [], dropped: [] };
    });
  parts.syncConnections();
  void applyDevConnection(registry, tokens, log);
  applyDevLocalConnection(registry);
  // Intents left unanswered by a reload or a crash are offered, never dropped or re-sent silently.
  void offerUnfinished({ store, completions });
  // Moved settings arrive as configuration changes (the registry re-syncs); a connection
  // that loaded before its token moved reconnects with it instead of asking for a sign-in.
  const migration = migrateLegacy();
  void migration.then((report) => {
    for (const id of report.movedTokenConnections) void store.reconnect(id);
    parts.firstLoad();
  });
  return { migration, migrateLegacy };
}

/** The sessions store and the factory that builds each connection's source. */
function createStore(context: vscode.ExtensionContext, tokens: TokenStore, log: Logger) {
  const createSource = createSourceFactory({
    tokens,
    log,
    extensionPath: context.extensionPath,
    version: String(context.extension.packageJSON.version ?? '0.0.0'),
    timeoutMs: () =>
      vscode.workspace.getConfiguration('sessionInspector').get('requestTimeoutSeconds', 20) * 1000,
    localPrices: readLocalPrices,
    localFolders: readLocalFolders,
    onPriceProblems: (lines) => void warnPriceProblems(lines),
    storageDir: context.globalStorageUri.fsPath,
  });
  const store = new SessionStore({
    createSource,
    log,
    pageSize: () => vscode.workspace.getConfiguration('sessionInspector').get('pageSize', 100),
    filters: {
      get: (id) => context.globalState.get<SessionFilters>(`filters/${id}`),
      set: (id, filters) => context.globalState.update(`filters/${id}`, filters),
    },
  });
  return { createSource, store };
}

/** The Search Results view and the search commands (their bodies load on first use). */
function createSearch(
  context: vscode.ExtensionContext,
  store: SessionStore,
  log: Logger,
  panels: SessionPanels,
) {
  const tree = new SearchResultsView();
  const view = vscode.window.createTreeView(SEARCH_VIEW, {
    treeDataProvider: tree,
    showCollapseAll: true,
  });
  const { disposables, idle } = registerSearchCommands({
    store,
    results: tree,
    bodies: () => loadCommandBodies(context.extensionPath),
    view,
    memory: context.globalState,
    adapters: () => loadSourceAdapters(context.extensionPath),
    storageDir: context.globalStorageUri.fsPath,
    log,
    openMatch: (match) => panels.openAt(match.session, match),
  });
  return { tree, view, idle, disposables: [tree, view, ...disposables] };
}

/** Show Changes, Export and the session actions: their ids now, their bodies on first use. */
function registerLazyCommands(
  context: vscode.ExtensionContext,
  parts: { store: SessionStore; tree: SessionsTreeProvider; archive: ArchiveStore; log: Logger },
): vscode.Disposable[] {
  const { store, tree, archive, log } = parts;
  const bodies = () => loadCommandBodies(context.extensionPath);
  const adapters = () => loadSourceAdapters(context.extensionPath);
  const storageDir = context.globalStorageUri.fsPath;
  return [
    ...registerChangesCommands({ store, bodies, adapters, storageDir, log }),
    ...registerExportCommands({
      store,
      bodies,
      adapters,
      storageDir,
      version: String(context.extension.packageJSON.version ?? '0.0.0'),
    }),
    ...registerSessionActionCommands({ store, tree, archive, bodies }),
  ];
}

/** The Sessions view's badge (the waiting count) and description, kept current. */
function showWaitingOnView(parts: {
  store: SessionStore;
  tree: SessionsTreeProvider;
  view: vscode.TreeView<TreeNode>;
  archive: ArchiveStore;
  statusBar: WaitingStatusBar;
}): vscode.Disposable[] {
  const { store, tree, view, archive, statusBar } = parts;
  const updateView = () => {
    // The same number and words as the status bar (countWaiting, waitingLabel).
    const count = countWaiting(store.waiting());
    view.badge = count.total
      ? {
          value: count.total,
          tooltip: [waitingLabel(count, store.waitingIncomplete()), archivedNote(store)]
            .filter(Boolean)
            .join(' '),
        }
      : undefined;
    view.description = tree.describe();
  };
  return [
    store.onDidChange(updateView),
    tree.onDidChangeTreeData(updateView),
    archive.onDidChange(() => {
      statusBar.update();
      updateView();
    }),
  ];
}

/**
 * Full refreshes at the user's interval while the Sessions view is visible; while it is
 * hidden (or was never opened) only what the waiting count needs, slowly, so the status bar
 * and the notification still tell the user when an agent needs them.
 */
function createPolling(store: SessionStore) {
  const setting = <T>(key: string, fallback: T) =>
    vscode.workspace.getConfiguration('sessionInspector').get<T>(key, fallback);
  const everyConnection = (refresh: (id: string) => Promise<void>) => async () => {
    await Promise.all(store.connections().map((c) => refresh(c.config.id)));
    return store.connections().every((c) => !c.error);
  };
  const poller = new Poller(
    everyConnection((id) => store.refresh(id)),
    () => setting('pollIntervalSeconds', 60) * 1000,
  );
  const backgroundPoller = new Poller(
    everyConnection((id) => store.refreshWaiting(id)),
    () => setting('backgroundPollIntervalSeconds', 180) * 1000,
  );
  const followVisibility = (visible: boolean, firstDelayMs?: number) => {
    poller.setActive(visible);
    backgroundPoller.setActive(!visible, firstDelayMs);
  };
  const disposables = [
    poller,
    backgroundPoller,
    // A changed interval applies now, not after the interval that was already scheduled.
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('sessionInspector.pollIntervalSeconds')) poller.restart();
      if (e.affectsConfiguration('sessionInspector.backgroundPollIntervalSeconds'))
        backgroundPoller.restart();
    }),
  ];
  return { disposables, followVisibility };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
