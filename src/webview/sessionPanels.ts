import * as vscode from 'vscode';
import { formatCost } from '../domain/format.ts';
import type { SessionSummary } from '../domain/session.ts';
import { surfaceLabel } from '../domain/surfaceText.ts';
import type { HostMessage, PanelState, SessionView } from '../shared/protocol.ts';
import { isPanelState, isWebviewMessage } from '../shared/protocol.ts';
import type { WebviewMessage } from '../shared/protocol.ts';
import { hasManualTasks } from '../sources/steering.ts';
import { finishManualTask } from '../commands/manualTaskCommands.ts';
import { RESUME_COMMAND } from '../commands/resumeCommands.ts';
import { isResumable } from '../domain/resume.ts';
import { PanelData } from './panelData.ts';

const DATA_MESSAGES = new Set([
  'getEntries',
  'search',
  'nextError',
  'getFullText',
  'selectFile',
  'retryTranscript',
  'openRaw',
  'openFile',
  'loadComments',
  'revealComment',
]);
function isDataMessage(message: WebviewMessage): message is Parameters<PanelData['handle']>[0] {
  return DATA_MESSAGES.has(message.type);
}
import type { SessionStore } from '../store/sessionStore.ts';
import { panelIcon, webviewHtml, webviewL10n, webviewPanelOptions } from './webviewHtml.ts';

export const SESSION_PANEL_TYPE = 'sessionInspector.session';

/**
 * One panel per session, reused when opened again and restored after a window
 * reload. The host posts nothing until the webview says `ready`.
 */
export class SessionPanels implements vscode.WebviewPanelSerializer, vscode.Disposable {
  private readonly panels = new Map<string, vscode.WebviewPanel>();
  /** The data behind each open panel, by the same key. */
  private readonly panelData = new Map<string, PanelData>();
  /** The last message of each type posted to each open panel, by the same key. */
  private readonly lastPosted = new Map<string, Map<HostMessage['type'], HostMessage>>();
  private readonly extensionUri: vscode.Uri;
  private readonly store: SessionStore;

  private readonly data: Omit<ConstructorParameters<typeof PanelData>[0], 'post'>;

  constructor(
    extensionUri: vscode.Uri,
    store: SessionStore,
    data: Omit<ConstructorParameters<typeof PanelData>[0], 'post' | 'store'>,
  ) {
    this.extensionUri = extensionUri;
    this.store = store;
    this.data = { ...data, store };
  }

  open(session: SessionSummary): void {
    const key = `${session.connectionId}/${session.id}`;
    const existing = this.panels.get(key);
    if (existing) {
      existing.reveal();
      return;
    }
    // The tab title is the backend's session name: one line, shortened, no invisible controls.
    const panel = vscode.window.createWebviewPanel(
      SESSION_PANEL_TYPE,
      surfaceLabel(session.label) || session.id,
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

  /** What an open panel's transcript holds now (integration tests); undefined when none. */
  transcriptInfo(connectionId: string, sessionId: string) {
    return this.panelData.get(`${connectionId}/${sessionId}`)?.transcriptInfo();
  }

  /** The last message of each type the host posted to an open panel (integration tests). */
  posted(
    connectionId: string,
    sessionId: string,
  ): ReadonlyMap<HostMessage['type'], HostMessage> | undefined {
    return this.lastPosted.get(`${connectionId}/${sessionId}`);
  }

  /**
   * Everything the host posts to a session's panel on `ready` (its Details, Transcript,
   * Comments and Usage tabs), collected without a webview (integration tests: opening a
   * real panel per session would cost seconds each).
   */
  async headless(session: SessionSummary): Promise<HostMessage[]> {
    const messages: HostMessage[] = [{ type: 'session', view: this.sessionView(session) }];
    const data = new PanelData({ ...this.data, post: (m) => messages.push(m) }, session);
    try {
      await data.start(session);
    } finally {
      data.dispose();
    }
    return messages;
  }

  dispose(): void {
    for (const panel of this.panels.values()) panel.dispose();
    this.panels.clear();
  }

  private sessionView(session: SessionSummary): SessionView {
    const connection = this.store.state(session.connectionId);
    return {
      session,
      connectionLabel: connection?.config.label ?? session.connectionId,
      cost: formatCost(session.estimatedCost),
      actions: {
        complete:
          Boolean(connection?.capabilities?.complete) && session.status.status !== 'finished',
        interrupt: connection?.config.kind === 'rest' && session.status.raw === 'running',
        resume: connection?.config.kind === 'local' && isResumable(session),
      },
    };
  }

  private options(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return webviewPanelOptions(this.extensionUri);
  }

  private attach(panel: vscode.WebviewPanel, state: PanelState): void {
    const key = `${state.connectionId}/${state.sessionId}`;
    this.panels.set(key, panel);
    panel.iconPath = panelIcon(this.extensionUri);
    panel.webview.html = webviewHtml(panel.webview, this.extensionUri, panel.title);
    const posted = new Map<HostMessage['type'], HostMessage>();
    this.lastPosted.set(key, posted);
    const post = (message: HostMessage) => {
      posted.set(message.type, message);
      void panel.webview.postMessage(message);
    };
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
      panel.title = surfaceLabel(session.label) || surfaceLabel(session.id);
      post({ type: 'session', view: this.sessionView(session) });
    };
    let ready = false;
    let data: PanelData | undefined;
    const subscriptions = [
      panel.webview.onDidReceiveMessage(async (message: unknown) => {
        if (!isWebviewMessage(message)) return;
        if (message.type === 'ready') {
          ready = true;
          post({ type: 'init', l10n: webviewL10n() });
          await send();
          const session = await this.findSession(state);
          if (!session) return;
          data?.dispose();
          data = new PanelData({ ...this.data, post }, session);
          this.panelData.set(key, data);
          await data.start(session);
          return;
        }
        if (isDataMessage(message)) {
          await data
            ?.handle(message)
            .catch((error: unknown) =>
              this.data.log.warn(`panel ${message.type}: ${(error as Error).message}`),
            );
          return;
        }
        void this.handle(message, state, post, send);
      }),
      // Keep the panel in step with the store (after a refresh, a completion…).
      this.store.onDidChange((id) => {
        if (!ready || (id !== undefined && id !== state.connectionId)) return;
        void send();
        void this.findSession(state).then((session) => session && data?.update(session));
      }),
      panel.onDidDispose(() => {
        data?.dispose();
        this.panels.delete(key);
        this.panelData.delete(key);
        this.lastPosted.delete(key);
        for (const s of subscriptions) s.dispose();
      }),
    ];
  }

  private async handle(
    message: WebviewMessage,
    state: PanelState,
    post: (message: HostMessage) => void,
    send: () => Promise<void>,
  ): Promise<void> {
    const session = await this.findSession(state);
    const node = session ? { kind: 'session', session } : undefined;
    switch (message.type) {
      case 'ready':
      case 'refresh':
        return send();
      default:
        return;
      case 'complete':
        return void vscode.commands.executeCommand('sessionInspector.completeSession', node);
      case 'cancel':
        return void vscode.commands.executeCommand('sessionInspector.cancelSession', node);
      case 'interrupt':
        return void vscode.commands.executeCommand('sessionInspector.interruptSession', node);
      case 'resume':
        return void vscode.commands.executeCommand(RESUME_COMMAND, node);
      case 'openManualTask': {
        const source = this.store.source(state.connectionId);
        if (!source || !hasManualTasks(source)) return;
        try {
          post({ type: 'manualTask', task: await source.describeManualTask(message.id) });
        } catch (error) {
          post({ type: 'manualTaskFailed', id: message.id, message: (error as Error).message });
        }
        return;
      }
      case 'finishManualTask': {
        const source = this.store.source(state.connectionId);
        if (!session || !source || !hasManualTasks(source)) return;
        await finishManualTask(this.store, session, source, message.id, message.finish);
        return;
      }
    }
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
