import * as vscode from 'vscode';
import type { CommentFilter, CommentsView, CommentView } from '../../shared/protocol.ts';
import { sourceOperation } from '../../sources/sessionSource.ts';
import { showInformation } from '../../views/safeMessage.ts';
import type { PanelContext, SessionHandlers } from './panelDeps.ts';
import type { TranscriptTab } from './transcriptTab.ts';

const empty = (state: CommentsView['state'], filter: CommentFilter): CommentsView => ({
  state,
  filter,
  threads: [],
  total: 0,
  hasMore: false,
});

/**
 * The Comments tab: the session's trace comment threads (backends with comments), and
 * scrolling the transcript to the text a comment points at.
 */
export class CommentsTab {
  private threads: CommentView[] = [];
  /** The transcript index the threads' anchors were placed in (each is a search). */
  private placedIn: object | undefined;
  private abort = new AbortController();
  private readonly ctx: PanelContext;
  private readonly transcript: TranscriptTab;

  constructor(ctx: PanelContext, transcript: TranscriptTab) {
    this.ctx = ctx;
    this.transcript = transcript;
  }

  readonly handlers = {
    loadComments: (m) => this.load(m.filter),
    revealComment: (m) => this.reveal(m.threadId),
  } satisfies Partial<SessionHandlers>;

  async load(filter: CommentFilter): Promise<void> {
    const { store, post } = this.ctx;
    const session = this.ctx.session();
    const tools = sourceOperation(store.source(session.connectionId), 'tools');
    const capabilities = store.state(session.connectionId)?.capabilities;
    if (!tools || !capabilities?.comments) {
      post({ type: 'comments', view: empty('unsupported', filter) });
      return;
    }
    post({ type: 'comments', view: empty('loading', filter) });
    try {
      const adapters = this.ctx.adapters();
      const list = await adapters.listSessionComments(tools, session.id, {
        filter: filter === 'ALL' ? undefined : filter,
        signal: this.abort.signal,
      });
      this.threads = list.threads;
      this.placedIn = undefined;
      post({ type: 'comments', view: adapters.commentsView(list, filter) });
    } catch (error) {
      post({
        type: 'comments',
        view: { ...empty('failed', filter), message: (error as Error).message },
      });
    }
  }

  /** Places anchors on first use (a search per comment), then scrolls the transcript. */
  async reveal(threadId: string): Promise<void> {
    const source = await this.transcript.indexedSource();
    if (!source) return;
    if (this.placedIn !== source) {
      const adapters = this.ctx.adapters();
      this.threads = await adapters.placeAnchors(this.threads, adapters.searchTranscript(source));
      this.placedIn = source;
    }
    const thread = this.threads.find((t) => t.threadId === threadId || t.id === threadId);
    if (thread?.entryIndex === undefined) {
      void showInformation(
        vscode.l10n.t('The text this comment points at is not in the transcript.'),
      );
      return;
    }
    this.ctx.post({
      type: 'reveal',
      index: thread.entryIndex,
      highlight: thread.anchor?.selectedText,
    });
  }

  reset(): void {
    this.abort.abort();
    this.abort = new AbortController();
    this.threads = [];
    this.placedIn = undefined;
  }

  dispose(): void {
    this.abort.abort();
  }
}
