import * as vscode from 'vscode';
import { formatCost } from '../domain/format.ts';
import type { MatchTarget } from '../domain/search/matchEntry.ts';
import type { SessionSummary } from '../domain/session.ts';
import { surfaceLabel } from '../domain/surfaceText.ts';
import type { HostMessage, PanelState, SessionView, WebviewMessage } from '../shared/protocol.ts';
import { isPanelState, isWebviewMessage } from '../shared/protocol.ts';
import { sourceOperation } from '../sources/sessionSource.ts';
import { finishManualTask } from '../commands/manualTaskCommands.ts';
import { RESUME_COMMAND } from '../commands/resumeCommands.ts';
import { isResumable } from '../domain/resume.ts';
import { sessionLink } from '../domain/sessionLink.ts';
import { EXPORT_COMMAND } from '../commands/exportCommands.ts';
import type { SessionStore } from '../store/sessionStore.ts';
import type { PanelDeps } from './session/panelDeps.ts';
import { SessionPanelData } from './session/sessionPanelData.ts';
import type { HostedPanel, PanelBehaviour } from './webviewHost.ts';
import { WebviewHost } from './webviewHost.ts';
import { SESSION_PAGE } from './webviewHtml.ts';

export const SESSION_PANEL_TYPE = 'sessionInspector.session';

/** The commands behind the header's Export, Copy and Archive buttons. */
const SESSION_COMMANDS = {
  export: EXPORT_COMMAND,
  copyId: 'sessionInspector.copySessionId',
  copyResume: 'sessionInspector.copyResumeCommand',
  copyLink: 'sessionInspector.copyLink',
  archive: 'sessionInspector.archiveSession',
  unarchive: 'sessionInspector.unarchiveSession',
} as const;

const keyOf = (state: PanelState) => `${state.connectionId}/${state.sessionId}`;

/** A session panel's behaviour: its Details tab's messages here, the other tabs' in panel data. */
interface SessionTab extends PanelBehaviour<WebviewMessage> {
  data: SessionPanelData;
}

/**
 * One panel per session, reused when opened again and restored after a window reload
 * (the webview host does both, and the ready handshake).
 */
export class SessionPanels implements vscode.WebviewPanelSerializer, vscode.Disposable {
  private readonly host: WebviewHost<WebviewMessage, HostMessage, PanelState>;
  private readonly store: SessionStore;
  private readonly deps: PanelDeps;

  constructor(extensionUri: vscode.Uri, store: SessionStore, deps: Omit<PanelDeps, 'store'>) {
    this.store = store;
    this.deps = { ...deps, store };
    this.host = new WebviewHost({
      viewType: SESSION_PANEL_TYPE,
      page: SESSION_PAGE,
      extensionUri,
      log: deps.log,
      isMessage: isWebviewMessage,
      isState: isPanelState,
      key: keyOf,
      init: (l10n) => ({ type: 'init', l10n }),
      create: (hosted, state) => this.create(hosted, state),
    });
  }

  open(session: SessionSummary): void {
    // The tab title is the backend's session name: one line, shortened, no invisible controls.
    this.host.open(
      { connectionId: session.connectionId, sessionId: session.id },
      surfaceLabel(session.label) || session.id,
    );
  }

  /** Opens (or shows) the session's panel at a search match's entry, the match marked. */
  openAt(session: SessionSummary, match: MatchTarget): Promise<void> {
    this.open(session);
    const key = keyOf({ connectionId: session.connectionId, sessionId: session.id });
    const tab = this.host.behaviour(key) as SessionTab | undefined;
    return tab?.data.revealMatch(match) ?? Promise.resolve();
  }

  deserializeWebviewPanel(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    return this.host.deserializeWebviewPanel(panel, state);
  }

  /** What an open panel's transcript holds now (integration tests); undefined when none. */
  transcriptInfo(connectionId: string, sessionId: string) {
    const tab = this.host.behaviour(keyOf({ connectionId, sessionId })) as SessionTab | undefined;
    return tab?.data.transcriptInfo();
  }

  /** The last message of each type the host posted to an open panel (integration tests). */
  posted(
    connectionId: string,
    sessionId: string,
  ): ReadonlyMap<HostMessage['type'], HostMessage> | undefined {
    return this.host.posted(keyOf({ connectionId, sessionId }));
  }

  /**
   * Everything the host posts to a session's panel on `ready` (its Details, Transcript,
   * Comments and Usage tabs), collected without a webview (integration tests: opening a
   * real panel per session would cost seconds each).
   */
  async headless(session: SessionSummary): Promise<HostMessage[]> {
    const messages: HostMessage[] = [{ type: 'session', view: this.sessionView(session) }];
    const data = new SessionPanelData({ ...this.deps, post: (m) => messages.push(m) });
    try {
      await data.start(session);
    } finally {
      data.dispose();
    }
    return messages;
  }

  dispose(): void {
    this.host.dispose();
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
        interrupt: Boolean(connection?.capabilities?.interrupt) && session.status.raw === 'running',
        resume: Boolean(connection?.capabilities?.resume) && isResumable(session),
        archived: this.deps.isArchived?.(session) ?? false,
        link: sessionLink(session) !== undefined,
      },
    };
  }

  private create(hosted: HostedPanel<HostMessage>, state: PanelState): SessionTab {
    const { panel, post } = hosted;
    const data = new SessionPanelData({
      ...this.deps,
      post: (m) => hosted.post(m),
      ready: () => hosted.ready,
    });
    /** The Details tab: the session's summary, and the tab title with it. */
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
    /** The tree's node of this session, as the session commands take it. */
    const node = async () => {
      const session = await this.findSession(state);
      return session ? { kind: 'session', session } : undefined;
    };
    const command = (id: string) => async () =>
      void vscode.commands.executeCommand(id, await node());
    const manualTasks = () => sourceOperation(this.store.source(state.connectionId), 'manualTasks');

    hosted.track(
      // Keep the panel in step with the store (after a refresh, a completion…).
      this.store.onDidChange((id) => {
        if (!hosted.ready || (id !== undefined && id !== state.connectionId)) return;
        void send();
        void this.findSession(state).then((session) => session && data.update(session));
      }),
    );

    return {
      data,
      ready: async () => {
        await send();
        const session = await this.findSession(state);
        if (session) await data.start(session);
      },
      handlers: {
        ...data.handlers,
        refresh: send,
        complete: command('sessionInspector.completeSession'),
        cancel: command('sessionInspector.cancelSession'),
        interrupt: command('sessionInspector.interruptSession'),
        resume: command(RESUME_COMMAND),
        sessionCommand: async (m) => {
          await vscode.commands.executeCommand(SESSION_COMMANDS[m.command], await node());
          // Archive state is not the store's: the header follows it here.
          if (m.command === 'archive' || m.command === 'unarchive') await send();
        },
        openManualTask: async (m) => {
          const source = manualTasks();
          if (!source) return;
          try {
            post({ type: 'manualTask', task: await source.describeManualTask(m.id) });
          } catch (error) {
            post({ type: 'manualTaskFailed', id: m.id, message: (error as Error).message });
          }
        },
        finishManualTask: async (m) => {
          const session = await this.findSession(state);
          const source = manualTasks();
          if (!session || !source) return;
          await finishManualTask(this.store, session, source, m.id, m.finish);
        },
      },
      dispose: () => data.dispose(),
    };
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
