import { entryForMatch, type MatchTarget } from '../../domain/search/matchEntry.ts';
import type { SessionSummary } from '../../domain/session.ts';
import type { HostMessage } from '../../shared/protocol.ts';
import { ChangesTab } from './changesTab.ts';
import { CommentsTab } from './commentsTab.ts';
import { openExternalLink, openRawTranscript, openWorkspaceFile } from './fileOpening.ts';
import type { PanelContext, PanelDeps, SessionHandlers } from './panelDeps.ts';
import { TranscriptTab } from './transcriptTab.ts';
import { UsageTab } from './usageTab.ts';

/**
 * The data behind one session panel's tabs (Transcript, Comments, Usage) and the handlers
 * of their messages. The Details tab is the panel's own (sessionPanels.ts).
 */
export class SessionPanelData {
  /** Set by start: the tabs load nothing before the page is ready and the session known. */
  private session: SessionSummary | undefined;
  private readonly transcript: TranscriptTab;
  private readonly comments: CommentsTab;
  private readonly usage: UsageTab;
  private readonly changes: ChangesTab;
  private readonly post: (message: HostMessage) => void;
  /** The last start's loading of the main transcript (undefined before the page is ready). */
  private loaded: Promise<void> | undefined;
  /**
   * A search match asked for while the page was not ready (a new tab, or a hidden one whose
   * page was discarded): revealed once the next start has loaded the transcript.
   */
  private pendingMatch: MatchTarget | undefined;
  private readonly pageReady: () => boolean;

  constructor(deps: PanelDeps & { post(message: HostMessage): void; ready?(): boolean }) {
    this.post = deps.post;
    this.pageReady = deps.ready ?? (() => true);
    const ctx: PanelContext = { ...deps, session: () => this.started() };
    this.usage = new UsageTab(ctx);
    this.transcript = new TranscriptTab(ctx, {
      // Per-turn usage is of the main transcript only.
      indexed: async (fileKey, source, signal) => {
        if (fileKey === 'main') await this.usage.collect(source, signal);
      },
      grew: async (fileKey, source, signal) => {
        if (fileKey === 'main') await this.usage.grew(source, signal);
      },
    });
    this.comments = new CommentsTab(ctx, this.transcript);
    this.changes = new ChangesTab(ctx);
    this.handlers = {
      ...this.transcript.handlers,
      ...this.comments.handlers,
      ...this.changes.handlers,
      openFile: (m) => openWorkspaceFile(m.path, m.line),
      openExternal: async (m) => void (await openExternalLink(m.url)),
      openRaw: () => openRawTranscript(this.transcript.path()),
    };
  }

  /** The handlers of the tabs' messages (the panel adds its own). */
  readonly handlers: Pick<
    SessionHandlers,
    | keyof TranscriptTab['handlers']
    | keyof CommentsTab['handlers']
    | keyof ChangesTab['handlers']
    | 'openFile'
    | 'openExternal'
    | 'openRaw'
  >;

  /** Called on `ready` (also after a webview reload): everything from the start. */
  async start(session: SessionSummary): Promise<void> {
    this.session = session;
    const loading = (async () => {
      this.usage.reset();
      this.comments.reset();
      await this.transcript.reset();
      this.usage.post();
      await Promise.all([this.transcript.load('main'), this.comments.load('ALL')]);
    })();
    this.loaded = loading;
    await loading;
    const match = this.pendingMatch;
    this.pendingMatch = undefined;
    if (match) await this.revealMatch(match);
  }

  /**
   * Scrolls the transcript to the entry of a search match (a JSONL line and its text) and
   * marks the text there; waits for the page and the transcript's index when needed.
   */
  async revealMatch(match: MatchTarget): Promise<void> {
    if (!this.loaded || !this.pageReady()) {
      this.pendingMatch = match;
      return;
    }
    await this.loaded;
    const source = await this.transcript.indexedSource();
    if (!source) return;
    const index = await entryForMatch(source, match);
    if (index !== undefined) this.post({ type: 'reveal', index, highlight: match.text });
  }

  /** The store has a newer summary of the session. */
  update(session: SessionSummary): void {
    this.session = session;
    this.usage.post();
  }

  /** What the open transcript holds now (the integration tests read it). */
  transcriptInfo(): ReturnType<TranscriptTab['info']> {
    return this.transcript.info();
  }

  private started(): SessionSummary {
    if (!this.session) throw new Error('the panel has not started');
    return this.session;
  }

  dispose(): void {
    this.transcript.dispose();
    this.comments.dispose();
  }
}
