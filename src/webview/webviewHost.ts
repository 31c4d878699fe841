/**
 * The one host of our webview panels (the session panel and the usage dashboard): one tab
 * per key, reused when opened again and restored after a window reload (it is the
 * panels' WebviewPanelSerializer); the page's HTML, CSP and icon; the ready handshake
 * (nothing is posted before the webview says `ready`, which it says again after a reload
 * of its page, or when a hidden tab whose page was discarded is shown again); every
 * message checked against the protocol before a handler sees it; and the panel's
 * subscriptions disposed with it. A panel only configures it: its protocol,
 * its state and a handler per message.
 */
import * as vscode from 'vscode';
import type { WebviewL10n } from '../shared/protocol.ts';
import type { Logger } from '../util/logger.ts';
import type { MessageHandlers } from './messageDispatch.ts';
import { messageDispatcher } from './messageDispatch.ts';
import type { WebviewPage } from './webviewHtml.ts';
import { panelIcon, webviewHtml, webviewL10n, webviewPanelOptions } from './webviewHtml.ts';

interface Message {
  type: string;
}

export type { MessageHandlers };

/** One open tab, as its panel's code sees it. */
export interface HostedPanel<Out extends Message> {
  readonly panel: vscode.WebviewPanel;
  /**
   * True once the webview has said `ready`; false again while its page is discarded (a
   * hidden tab), until the page, shown again, says `ready` anew.
   */
  readonly ready: boolean;
  /** Posts to the webview; nothing after the tab is closed. */
  post(message: Out): void;
  /** Disposed when the tab closes. */
  track(...disposables: vscode.Disposable[]): void;
}

/** What a panel does in one tab: built when the tab opens or is restored. */
export interface PanelBehaviour<In extends Message> {
  /** After each `ready`, once `init` is posted: send what the page needs to start. */
  ready(): Promise<void> | void;
  handlers: MessageHandlers<In>;
  /** Called when the tab closes (tracked subscriptions are disposed by the host). */
  dispose?(): void;
}

export interface WebviewHostOptions<In extends Message, Out extends Message, State> {
  viewType: string;
  page: WebviewPage;
  extensionUri: vscode.Uri;
  log: Logger;
  /** The protocol's validator of webview → host messages. */
  isMessage(value: unknown): value is In;
  /** The validator of the state the webview keeps (what a reload restores the tab from). */
  isState(value: unknown): value is State;
  /** One tab per key: opening an open key reveals its tab. */
  key(state: State): string;
  /** The answer to `ready`, posted before anything else. */
  init(l10n: WebviewL10n): Out;
  /** The panel's behaviour in a new tab. */
  create(hosted: HostedPanel<Out>, state: State): PanelBehaviour<In>;
  /**
   * Before a tab VS Code restores is attached: false closes it (its subject is gone). It
   * may set the tab's title. Without it every tab with a valid state is restored.
   */
  restore?(state: State, panel: vscode.WebviewPanel): Promise<boolean> | boolean;
}

interface Tab<In extends Message, Out extends Message> {
  panel: vscode.WebviewPanel;
  behaviour: PanelBehaviour<In>;
  /** The last message of each type posted to the tab, oldest first (integration tests). */
  posted: Map<Out['type'], Out>;
  /** Marks the page as gone when the hidden tab's page was discarded. */
  hidden(): void;
}

export class WebviewHost<In extends Message, Out extends Message, State>
  implements vscode.WebviewPanelSerializer, vscode.Disposable
{
  private readonly tabs = new Map<string, Tab<In, Out>>();
  private readonly options: WebviewHostOptions<In, Out, State>;

  constructor(options: WebviewHostOptions<In, Out, State>) {
    this.options = options;
  }

  /** Registers the host as its view type's serializer (restores tabs after a reload). */
  register(): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(this.options.viewType, this);
  }

  /** Reveals the tab of this state's key, or opens one titled `title`. */
  open(state: State, title: string): void {
    if (this.reveal(this.options.key(state))) return;
    const panel = vscode.window.createWebviewPanel(
      this.options.viewType,
      title,
      vscode.ViewColumn.Active,
      this.panelOptions(),
    );
    this.attach(panel, state);
  }

  /**
   * A tab VS Code restores after a reload, from the state its webview kept. It is closed
   * when that state is not ours, the panel refuses it, or its key's tab is already open.
   */
  async deserializeWebviewPanel(panel: vscode.WebviewPanel, saved: unknown): Promise<void> {
    const { isState, key, restore } = this.options;
    if (!isState(saved) || this.tabs.has(key(saved))) {
      panel.dispose();
      return;
    }
    const accepted = restore ? await restore(saved, panel) : true;
    // Another tab of the same key may have opened while the panel looked.
    if (!accepted || this.tabs.has(key(saved))) {
      panel.dispose();
      return;
    }
    panel.webview.options = this.panelOptions();
    this.attach(panel, saved);
  }

  /** Reveals the open tab of this key; false when none is open. */
  reveal(key: string): boolean {
    const tab = this.tabs.get(key);
    // Revealed, a discarded page loads again: what is posted now waits for its `ready`.
    tab?.hidden();
    tab?.panel.reveal();
    return tab !== undefined;
  }

  /** The keys of the open tabs. */
  keys(): string[] {
    return [...this.tabs.keys()];
  }

  /** The behaviour of an open tab. */
  behaviour(key: string): PanelBehaviour<In> | undefined {
    return this.tabs.get(key)?.behaviour;
  }

  /** The last message of each type posted to an open tab. */
  posted(key: string): ReadonlyMap<Out['type'], Out> | undefined {
    return this.tabs.get(key)?.posted;
  }

  dispose(): void {
    for (const tab of [...this.tabs.values()]) tab.panel.dispose();
    this.tabs.clear();
  }

  private panelOptions(): vscode.WebviewPanelOptions & vscode.WebviewOptions {
    return webviewPanelOptions(this.options.extensionUri);
  }

  private attach(panel: vscode.WebviewPanel, state: State): void {
    const { extensionUri, page, log, viewType } = this.options;
    const key = this.options.key(state);
    panel.iconPath = panelIcon(extensionUri);
    panel.webview.html = webviewHtml(panel.webview, extensionUri, panel.title, page);
    const posted = new Map<Out['type'], Out>();
    const subscriptions: vscode.Disposable[] = [];
    let ready = false;
    let closed = false;
    const hosted: HostedPanel<Out> = {
      panel,
      get ready() {
        return ready;
      },
      post(message) {
        if (closed) return;
        posted.delete(message.type); // keeps the map in posting order
        posted.set(message.type, message);
        void panel.webview.postMessage(message);
      },
      track(...disposables) {
        if (closed) for (const d of disposables) d.dispose();
        else subscriptions.push(...disposables);
      },
    };
    const behaviour = this.options.create(hosted, state);
    // Without retainContextWhenHidden a hidden tab's page is discarded, and what is posted
    // to it is lost; shown again, the page starts over and says `ready` again.
    const hidden = () => {
      if (!panel.visible && !panel.options.retainContextWhenHidden) ready = false;
    };
    this.tabs.set(key, { panel, behaviour, posted, hidden });
    const dispatch = messageDispatcher<In>({
      isMessage: this.options.isMessage,
      ready: () => {
        ready = true;
        hosted.post(this.options.init(webviewL10n()));
        return behaviour.ready();
      },
      handlers: behaviour.handlers,
      failed: (type, error) =>
        log.warn(`${viewType} ${type}: ${error instanceof Error ? error.message : String(error)}`),
    });

    subscriptions.push(
      panel.webview.onDidReceiveMessage((message: unknown) => {
        if (!closed) void dispatch(message);
      }),
      panel.onDidChangeViewState(hidden),
      panel.onDidDispose(() => {
        closed = true;
        if (this.tabs.get(key)?.panel === panel) this.tabs.delete(key);
        try {
          behaviour.dispose?.();
        } finally {
          for (const s of subscriptions.splice(0)) s.dispose();
        }
      }),
    );
  }
}
