/**
 * The connection-level usage dashboard: `sessionInspector.showUsageDashboard` opens one
 * panel per connection (reused when opened again) showing get-agent-session-usage and
 * get-agent-session-analytics as charts (MCP), or the usage report of the local
 * transcripts (local connections). The webview host (webviewHost.ts) does the ready
 * handshake and checks every message with isDashboardMessage. The webview keeps its
 * connection and range with setState, so a reload restores the tab (restore).
 */
import * as vscode from 'vscode';
import { connectionIdOf } from '../commands/commandArgs.ts';
import { isBackendError } from '../domain/errors.ts';
import { DETAIL_MAX_LENGTH, plainSurfaceText, surfaceLabel } from '../domain/surfaceText.ts';
import type {
  DashboardPanelState,
  DashboardRange,
  DashboardToHost,
  DashboardView,
  HostToDashboard,
} from '../shared/dashboardProtocol.ts';
import { isDashboardMessage, isDashboardPanelState } from '../shared/dashboardProtocol.ts';
import { sourceOperation } from '../sources/sessionSource.ts';
import type { SourceAdapters } from '../sources/sourceFactory.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { Logger } from '../util/logger.ts';
import { showInformation, showWarning } from '../views/safeMessage.ts';
import { dashboardFailure, dashboardFilters, toDashboardView } from './dashboardView.ts';
import { localRangeStart, localUsageView } from './localUsageView.ts';
import type { HostedPanel, PanelBehaviour } from './webviewHost.ts';
import { WebviewHost } from './webviewHost.ts';

export const DASHBOARD_COMMAND = 'sessionInspector.showUsageDashboard';
export const DASHBOARD_PANEL_TYPE = 'sessionInspector.dashboard';
const DASHBOARD_PAGE = { script: 'dashboard.js', element: 'usage-dashboard' };

export interface UsageDashboardDeps {
  extensionUri: vscode.Uri;
  store: SessionStore;
  adapters: () => SourceAdapters;
  log: Logger;
}

/** The registered dashboard: its restore hook and open tabs are for the integration tests. */
export interface UsageDashboards {
  serializer: vscode.WebviewPanelSerializer;
  /** Connections whose dashboard tab is open. */
  openConnections(): string[];
  disposables: vscode.Disposable[];
}

export function registerUsageDashboard(deps: UsageDashboardDeps): UsageDashboards {
  const eligible = (id: string) => hasDashboard(deps.store, id);
  const title = (label: string) => vscode.l10n.t('Usage: {0}', surfaceLabel(label));
  const host = new WebviewHost<DashboardToHost, HostToDashboard, DashboardPanelState>({
    viewType: DASHBOARD_PANEL_TYPE,
    page: DASHBOARD_PAGE,
    extensionUri: deps.extensionUri,
    log: deps.log,
    isMessage: isDashboardMessage,
    isState: isDashboardPanelState,
    key: (state) => state.connectionId,
    init: (l10n) => ({ type: 'init', l10n }),
    create: (hosted, state) => dashboardTab(deps, hosted, state),
    /** A restored tab is closed when its connection is gone or no longer has a dashboard. */
    restore: async ({ connectionId }, panel) => {
      const state = deps.store.state(connectionId);
      if (!state) return false;
      if (state.capabilities === undefined && !eligible(connectionId)) {
        await deps.store.refresh(connectionId);
      }
      if (!eligible(connectionId)) return false;
      panel.title = title(state.config.label);
      return true;
    },
  });

  async function show(arg: unknown): Promise<void> {
    const id = connectionIdOf(arg) ?? (await pickConnection(deps.store));
    if (!id) return;
    if (host.reveal(id)) return;
    const state = deps.store.state(id);
    if (!state) {
      void showWarning(vscode.l10n.t('That connection no longer exists.'));
      return;
    }
    // Capabilities load with the first list; a fresh connection may not have them yet.
    if (state.capabilities === undefined) await deps.store.refresh(id);
    if (!eligible(id)) {
      void showWarning(
        vscode.l10n.t(
          '{0} has no usage dashboard: it needs the local transcripts, or an MCP server with the get-agent-session-usage tool.',
          surfaceLabel(state.config.label),
        ),
      );
      return;
    }
    host.open({ connectionId: id, range: null }, title(state.config.label));
  }

  return {
    serializer: host,
    openConnections: () => host.keys(),
    disposables: [
      vscode.commands.registerCommand(DASHBOARD_COMMAND, (arg?: unknown) => show(arg)),
      host.register(),
      host,
    ],
  };
}

/** Local transcripts total their own usage; an MCP server answers its usage tools as JSON. */
function hasDashboard(store: SessionStore, id: string): boolean {
  const state = store.state(id);
  // Capabilities first where known: asking the store for a source builds it.
  if (!state || state.capabilities?.usage === false) return false;
  const source = store.source(id);
  if (sourceOperation(source, 'localFiles')) return true;
  return state.capabilities?.usage === true && sourceOperation(source, 'tools') !== undefined;
}

/** The connection whose dashboard to show: the only one that has one, or the user's pick. */
async function pickConnection(store: SessionStore): Promise<string | undefined> {
  const candidates = store.connections().filter((s) => hasDashboard(store, s.config.id));
  if (candidates.length === 0) {
    void showInformation(
      vscode.l10n.t(
        'No connection offers a usage dashboard. It needs the local transcripts connection, or an MCP connection whose server has the get-agent-session-usage tool (refresh the connection if it was just added).',
      ),
    );
    return undefined;
  }
  if (candidates.length === 1) return candidates[0]?.config.id;
  const chosen = await vscode.window.showQuickPick(
    candidates.map((s) => ({
      label: surfaceLabel(s.config.label),
      description:
        s.config.url === undefined
          ? undefined
          : plainSurfaceText(s.config.url, { maxLength: DETAIL_MAX_LENGTH }),
      id: s.config.id,
    })),
    { placeHolder: vscode.l10n.t('Show the usage dashboard of which connection?') },
  );
  return chosen?.id;
}

/** One dashboard tab: loads the view for its range, again when the range or filters change. */
function dashboardTab(
  deps: UsageDashboardDeps,
  hosted: HostedPanel<HostToDashboard>,
  initial: DashboardPanelState,
): PanelBehaviour<DashboardToHost> {
  const { connectionId } = initial;
  const { post } = hosted;
  let range = initial.range;
  let running: AbortController | undefined;
  let lastFilters = deps.store.state(connectionId)?.filters;
  let lastSource = deps.store.source(connectionId);

  const load = async () => {
    running?.abort();
    const controller = new AbortController();
    running = controller;
    post({ type: 'loading' });
    try {
      lastSource = deps.store.source(connectionId);
      const view = await fetchView(deps, connectionId, range, controller.signal);
      if (controller.signal.aborted) return;
      post(
        view
          ? { type: 'data', view, state: { connectionId, range } }
          : {
              type: 'failed',
              message: vscode.l10n.t('This connection no longer offers a usage dashboard.'),
            },
      );
    } catch (error) {
      if (controller.signal.aborted) return;
      if (isBackendError(error) && error.kind === 'canceled') return;
      deps.log.warn(`usage dashboard ${connectionId}: ${(error as Error).message}`);
      post({ type: 'failed', message: dashboardFailure(error) });
    } finally {
      if (running === controller) running = undefined;
    }
  };

  hosted.track(
    // New filters on the connection, or a new source (prices changed): the dashboard follows.
    deps.store.onDidChange((id) => {
      if (!hosted.ready || (id !== undefined && id !== connectionId)) return;
      const state = deps.store.state(connectionId);
      if (!state) return;
      const source = deps.store.source(connectionId);
      const followsFilters = !sourceOperation(source, 'localFiles');
      if ((followsFilters && state.filters !== lastFilters) || source !== lastSource) {
        lastFilters = state.filters;
        void load();
      }
    }),
  );

  return {
    ready: load,
    handlers: {
      refresh: () => hosted.ready && load(),
      setRange: (m) => {
        range = m.days;
        if (hosted.ready) return load();
      },
    },
    dispose: () => running?.abort(),
  };
}

/** The view of a connection's usage for a range; undefined when it lost its dashboard. */
async function fetchView(
  deps: UsageDashboardDeps,
  connectionId: string,
  range: DashboardRange,
  signal: AbortSignal,
): Promise<DashboardView | undefined> {
  const state = deps.store.state(connectionId);
  const source = deps.store.source(connectionId);
  if (!state) return undefined;
  const connectionLabel = state.config.label;
  const local = sourceOperation(source, 'localFiles');
  if (local) {
    // This machine's transcripts, by local day; the tree's filters do not apply.
    const since = range === null ? undefined : localRangeStart(range);
    const report = await local.usage({ ...(since ? { since } : {}), signal });
    const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    return localUsageView(report, { connectionLabel, range, timeZone });
  }
  const tools = sourceOperation(source, 'tools');
  if (!tools) return undefined;
  const filters = dashboardFilters(state.filters, range);
  const data = await deps.adapters().fetchDashboardData(tools, { filters, signal });
  return toDashboardView(data, { connectionLabel, range, filters });
}
