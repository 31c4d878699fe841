/**
 * The connection-level usage dashboard: `sessionInspector.showUsageDashboard` opens one
 * panel per connection (reused when opened again) showing get-agent-session-usage and
 * get-agent-session-analytics as charts (MCP), or the usage report of the local
 * transcripts (local connections). The host posts nothing until the webview says
 * `ready`; every message from the webview is checked by isDashboardMessage. The webview
 * keeps its connection and range with setState, so a reload restores the tab (restore).
 */
import * as vscode from 'vscode';
import { connectionIdOf } from '../commands/commandArgs.ts';
import { isBackendError } from '../domain/errors.ts';
import { DETAIL_MAX_LENGTH, plainSurfaceText, surfaceLabel } from '../domain/surfaceText.ts';
import type {
  DashboardRange,
  DashboardView,
  HostToDashboard,
} from '../shared/dashboardProtocol.ts';
import { isDashboardMessage, isDashboardPanelState } from '../shared/dashboardProtocol.ts';
import type { JsonToolCaller } from '../sources/mcp/jsonToolCaller.ts';
import { hasLocalUsage } from '../sources/localUsageSource.ts';
import type { SessionSource } from '../sources/sessionSource.ts';
import type { SourceAdapters } from '../sources/sourceFactory.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { Logger } from '../util/logger.ts';
import { showInformation, showWarning } from '../views/safeMessage.ts';
import { dashboardFailure, dashboardFilters, toDashboardView } from './dashboardView.ts';
import { localRangeStart, localUsageView } from './localUsageView.ts';
import { panelIcon, webviewHtml, webviewL10n, webviewPanelOptions } from './webviewHtml.ts';

export const DASHBOARD_COMMAND = 'sessionInspector.showUsageDashboard';
export const DASHBOARD_PANEL_TYPE = 'sessionInspector.dashboard';
const DASHBOARD_PAGE = { script: 'dashboard.js', element: 'usage-dashboard' };

export interface UsageDashboardDeps {
  extensionUri: vscode.Uri;
  store: SessionStore;
  adapters: () => SourceAdapters;
  log: Logger;
}

type DashboardSource = SessionSource & JsonToolCaller;

/** MCP sources answer tool calls as JSON; the dashboard needs nothing else. */
export function isDashboardSource(source: SessionSource | undefined): source is DashboardSource {
  return !!source && typeof (source as Partial<JsonToolCaller>).callJson === 'function';
}

/** The registered dashboard: its restore hook and open tabs are for the integration tests. */
export interface UsageDashboards {
  serializer: vscode.WebviewPanelSerializer;
  /** Connections whose dashboard tab is open. */
  openConnections(): string[];
  disposables: vscode.Disposable[];
}

export function registerUsageDashboard(deps: UsageDashboardDeps): UsageDashboards {
  const panels = new Map<string, vscode.WebviewPanel>();

  // Capabilities first: asking the store for a source creates it (and loads its bundle).
  const eligible = (id: string) => {
    const state = deps.store.state(id);
    if (state?.config.kind === 'local') return hasLocalUsage(deps.store.source(id));
    return state?.capabilities?.usage === true && isDashboardSource(deps.store.source(id));
  };

  async function pick(): Promise<string | undefined> {
    const candidates = deps.store.connections().filter((s) => eligible(s.config.id));
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

  async function show(arg: unknown): Promise<void> {
    const id = connectionIdOf(arg) ?? (await pick());
    if (!id) return;
    const existing = panels.get(id);
    if (existing) {
      existing.reveal();
      return;
    }
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
    open(id, state.config.label);
  }

  const options = webviewPanelOptions(deps.extensionUri);

  function open(connectionId: string, label: string): void {
    const title = vscode.l10n.t('Usage: {0}', surfaceLabel(label));
    const panel = vscode.window.createWebviewPanel(
      DASHBOARD_PANEL_TYPE,
      title,
      vscode.ViewColumn.Active,
      options,
    );
    attach(panel, connectionId, null);
  }

  /**
   * A tab VS Code restores after a reload, from the state the webview kept. It is closed
   * when that state is not ours, its connection is gone or no longer has a dashboard, or
   * the connection's dashboard is already open.
   */
  async function restore(panel: vscode.WebviewPanel, saved: unknown): Promise<void> {
    if (!isDashboardPanelState(saved)) {
      panel.dispose();
      return;
    }
    const { connectionId, range } = saved;
    const state = deps.store.state(connectionId);
    if (!state || panels.has(connectionId)) {
      panel.dispose();
      return;
    }
    if (state.capabilities === undefined && state.config.kind !== 'local') {
      await deps.store.refresh(connectionId);
    }
    if (!eligible(connectionId) || panels.has(connectionId)) {
      panel.dispose();
      return;
    }
    panel.webview.options = options;
    panel.title = vscode.l10n.t('Usage: {0}', surfaceLabel(state.config.label));
    attach(panel, connectionId, range);
  }

  function attach(panel: vscode.WebviewPanel, connectionId: string, initial: DashboardRange): void {
    panels.set(connectionId, panel);
    panel.iconPath = panelIcon(deps.extensionUri);
    panel.webview.html = webviewHtml(panel.webview, deps.extensionUri, panel.title, DASHBOARD_PAGE);

    const post = (message: HostToDashboard) => void panel.webview.postMessage(message);
    let range: DashboardRange = initial;
    let ready = false;
    let running: AbortController | undefined;
    let lastFilters = deps.store.state(connectionId)?.filters;
    let lastSource = deps.store.source(connectionId);

    /** The view for the current range; undefined when the connection lost its dashboard. */
    const fetchView = async (signal: AbortSignal): Promise<DashboardView | undefined> => {
      const state = deps.store.state(connectionId);
      const source = deps.store.source(connectionId);
      lastSource = source;
      if (!state) return undefined;
      const connectionLabel = state.config.label;
      if (hasLocalUsage(source)) {
        // This machine's transcripts, by local day; the tree's filters do not apply.
        const since = range === null ? undefined : localRangeStart(range);
        const report = await source.usage({ ...(since ? { since } : {}), signal });
        const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
        return localUsageView(report, { connectionLabel, range, timeZone });
      }
      if (!isDashboardSource(source)) return undefined;
      const filters = dashboardFilters(state.filters, range);
      const data = await deps.adapters().fetchDashboardData(source, { filters, signal });
      return toDashboardView(data, { connectionLabel, range, filters });
    };

    const load = async () => {
      running?.abort();
      const controller = new AbortController();
      running = controller;
      post({ type: 'loading' });
      try {
        const view = await fetchView(controller.signal);
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

    const subscriptions = [
      panel.webview.onDidReceiveMessage((message: unknown) => {
        if (!isDashboardMessage(message)) return;
        if (message.type === 'ready') {
          ready = true;
          post({ type: 'init', l10n: webviewL10n() });
        }
        if (message.type === 'setRange') range = message.days;
        if (ready) void load();
      }),
      // New filters on the connection, or a new source (prices changed): the dashboard follows.
      deps.store.onDidChange((id) => {
        if (!ready || (id !== undefined && id !== connectionId)) return;
        const state = deps.store.state(connectionId);
        if (!state) return;
        const source = deps.store.source(connectionId);
        const followsFilters = !hasLocalUsage(source);
        if ((followsFilters && state.filters !== lastFilters) || source !== lastSource) {
          lastFilters = state.filters;
          void load();
        }
      }),
      panel.onDidDispose(() => {
        running?.abort();
        panels.delete(connectionId);
        for (const s of subscriptions) s.dispose();
      }),
    ];
  }

  const serializer: vscode.WebviewPanelSerializer = {
    deserializeWebviewPanel: (panel, saved) => restore(panel, saved),
  };
  return {
    serializer,
    openConnections: () => [...panels.keys()],
    disposables: [
      vscode.commands.registerCommand(DASHBOARD_COMMAND, (arg?: unknown) => show(arg)),
      vscode.window.registerWebviewPanelSerializer(DASHBOARD_PANEL_TYPE, serializer),
      {
        dispose() {
          for (const panel of [...panels.values()]) panel.dispose();
          panels.clear();
        },
      },
    ],
  };
}
