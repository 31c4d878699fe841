import * as vscode from 'vscode';
import { formatCost } from '../domain/format.ts';
import type { SessionSummary } from '../domain/session.ts';
import type { HostMessage, PanelState } from '../shared/protocol.ts';
import { isPanelState, isWebviewMessage } from '../shared/protocol.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import { webviewHtml } from './webviewHtml.ts';

export const SESSION_PANEL_TYPE = 'agentSessions.session';

/**
 * One panel per session, reused when opened again and restored after a window
 * reload. The host posts nothing until the webview says `ready`.
 */
export class SessionPanels implements vscode.WebviewPanelSerializer, vscode.Disposable {
  private readonly panels = new Map<string, vscode.WebviewPanel>();
  private readonly extensionUri: vscode.Uri;
  private readonly store: SessionStore;

  constructor(extensionUri: vscode.Uri, store: SessionStore) {
    this.extensionUri = extensionUri;
    this.store = store;
  }

  open(session: SessionSummary): void {
    const key = `${session.connectionId}/${session.id}`;
    const existing = this.panels.get(key);
    if (existing) {
      existing.reveal();
      return;
    }
    const panel = vscode.window.createWebviewPanel(
      SESSION_PANEL_TYPE,
      session.label,
      vscode.ViewColumn.Active,
      this.options(),
    );
    this.attach(panel, { connectionId: session.connectionId, sessionId: session.id });
  }

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    if (!isPanelState(state)) {
      panel.dispose();
      return;
    }
    panel.webview.options = this.options();
    this.attach(panel, state);
  }

  dispose(): void {
    for (const panel of this.panels.values()) panel.dispose();
    this.panels.clear();
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      retainContextWhenHidden: false,
      localResourceRoots: [
        vscode.Uri.joinPath(this.extensionUri, 'dist', 'webview'),
        vscode.Uri.joinPath(this.extensionUri, 'media'),
      ],
    };
  }

  private attach(panel: vscode.WebviewPanel, state: PanelState): void {
    const key = `${state.connectionId}/${state.sessionId}`;
    this.panels.set(key, panel);
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'agent-sessions.svg');
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, panel.title);
    const post = (message: HostMessage) => void panel.webview.postMessage(message);
    const send = async () => {
      const session = await this.findSession(state);
      if (!session) {
        post({
          type: 'failed',
          message: vscode.l10n.t(
            'This session is not in the loaded list any more. Refresh the Sessions view and open it again.',
          ),
        });
        return;
      }
      panel.title = session.label;
      const label = this.store.state(state.connectionId)?.config.label ?? state.connectionId;
      post({
        type: 'session',
        view: { session, connectionLabel: label, cost: formatCost(session.estimatedCost) },
      });
    };
    const subscriptions = [
      panel.webview.onDidReceiveMessage((message: unknown) => {
        if (!isWebviewMessage(message)) return;
        if (message.type === 'ready' || message.type === 'refresh') void send();
      }),
      panel.onDidDispose(() => {
        this.panels.delete(key);
        for (const s of subscriptions) s.dispose();
      }),
    ];
  }

  /** After a reload the store may not have loaded yet: load once, then look. */
  private async findSession(state: PanelState): Promise<SessionSummary | undefined> {
    const find = () =>
      this.store.state(state.connectionId)?.sessions.find((s) => s.id === state.sessionId);
    if (!find() && !this.store.state(state.connectionId)?.loadedOnce)
      await this.store.refresh(state.connectionId);
    return find();
  }
}
