import * as vscode from 'vscode';
import type { TranscriptStatus } from '../../shared/protocol.ts';
import type { OpenedTranscript } from '../../sources/transcripts/openTranscript.ts';
import { watchLiveTranscript } from './liveTranscript.ts';
import type { PanelContext, SessionHandlers } from './panelDeps.ts';

type TranscriptSource = OpenedTranscript['source'];

/** What the panel's other tabs learn from the transcript. */
export interface TranscriptEvents {
  /** The file `fileKey` was asked for is fully indexed. */
  indexed(fileKey: string, source: TranscriptSource, signal: AbortSignal): Promise<void>;
  /** A live file grew; `fileKey` is the file's key as the server named it. */
  grew(fileKey: string, source: TranscriptSource, signal: AbortSignal): Promise<void>;
}

/**
 * The Transcript tab: the session's transcript (main or a subagent's), downloaded and
 * indexed on the host; the webview asks for windows of entries, searches and full texts.
 * Nothing is sent that the webview did not ask for, and never a whole file.
 */
export class TranscriptTab {
  private opened: OpenedTranscript | undefined;
  /** Watches the open transcript's file while it may grow. */
  private live: { dispose(): void } | undefined;
  private fileKey = 'main';
  private abort = new AbortController();
  private readonly ctx: PanelContext;
  private readonly events: TranscriptEvents;

  constructor(ctx: PanelContext, events: TranscriptEvents) {
    this.ctx = ctx;
    this.events = events;
  }

  readonly handlers = {
    selectFile: (m) => this.load(m.fileKey),
    retryTranscript: () => this.load(this.fileKey),
    getEntries: async (m) => {
      const source = this.opened?.source;
      if (!source) return;
      const window = await source.getWindow(m.start, Math.min(m.count, 500));
      this.ctx.post({
        type: 'entries',
        requestId: m.requestId,
        start: window.start,
        entries: window.entries,
        total: window.total,
      });
    },
    search: async (m) => {
      const source = this.opened?.source;
      if (!source) return;
      const result = await source.search(m.query, { from: m.from, direction: m.direction });
      this.ctx.post({ type: 'searchResult', requestId: m.requestId, result });
    },
    nextError: (m) => {
      const source = this.opened?.source;
      if (!source) return;
      const index = source.nextError(m.from);
      const { errorCount: total, complete } = source.info();
      this.ctx.post({
        type: 'searchResult',
        requestId: m.requestId,
        result: { index, ordinal: index === null ? 0 : 1, total, complete },
      });
    },
    getFullText: async (m) => {
      const source = this.opened?.source;
      if (!source) return;
      const text = (await source.fullText(m.index, m.part)) ?? '';
      this.ctx.post({
        type: 'fullText',
        requestId: m.requestId,
        index: m.index,
        part: m.part,
        text,
      });
    },
  } satisfies Partial<SessionHandlers>;

  /** The open transcript's index, once it is complete; undefined when none is open. */
  async indexedSource(): Promise<TranscriptSource | undefined> {
    const source = this.opened?.source;
    await (source as { whenIndexed?: () => Promise<void> } | undefined)?.whenIndexed?.();
    return source;
  }

  /** The open transcript's file on this machine, when it has one. */
  path(): string | undefined {
    return this.opened?.path;
  }

  /** What the open transcript holds now (the integration tests read it). */
  info(): ReturnType<TranscriptSource['info']> | undefined {
    return this.opened?.source.info();
  }

  /** Closes the open file and opens `fileKey` ('main' or 'subagent:<id>'). */
  async load(fileKey: string): Promise<void> {
    await this.close();
    const signal = this.abort.signal;
    this.fileKey = fileKey;
    const session = this.ctx.session();
    const source = this.ctx.store.source(session.connectionId);
    if (!source)
      return this.postStatus({ state: 'none', message: vscode.l10n.t('The connection is gone.') });
    this.postStatus({ state: 'loading', message: vscode.l10n.t('Loading the transcript…') });
    try {
      const opened = await this.ctx.adapters().openSessionTranscript({
        session,
        source,
        storageDir: this.ctx.storageDir,
        fileKey,
        signal,
        onProgress: (p) =>
          this.postStatus({
            state: 'loading',
            message: vscode.l10n.t('Downloading the transcript…'),
            bytesDone: p.bytesDone,
            bytesTotal: p.bytesTotal,
          }),
      });
      if (signal.aborted) {
        await opened?.close();
        return;
      }
      if (!opened) {
        return this.postStatus({
          state: 'none',
          message: vscode.l10n.t('This backend keeps no transcript for its sessions.'),
        });
      }
      this.opened = opened;
      // The server may key the file differently from the transcript's reference to it.
      this.fileKey = opened.fileKey;
      this.postReady();
      if (opened.live && opened.path) {
        this.live = watchLiveTranscript(
          opened.path,
          opened.source,
          signal,
          async () => {
            this.postReady();
            await this.events.grew(this.fileKey, opened.source, signal);
          },
          this.ctx.log,
        );
      }
      // Entry counts grow while a large file is indexed in the background.
      void this.indexedSource().then(
        async () => {
          if (signal.aborted) return;
          this.postReady();
          await this.events.indexed(fileKey, opened.source, signal);
        },
        () => undefined,
      );
    } catch (error) {
      if (signal.aborted) return;
      const adapters = this.ctx.adapters();
      if (adapters.isTranscriptUnavailableError(error)) {
        return this.postStatus({
          state: 'unavailable',
          message: error.description,
          canRetry: error.canRetry,
        });
      }
      this.ctx.log.warn(`transcript of ${session.id}: ${(error as Error).message}`);
      this.postStatus({ state: 'failed', message: (error as Error).message, canRetry: true });
    }
  }

  /** Back to the main file, nothing open (a restarted page loads it again). */
  async reset(): Promise<void> {
    await this.close();
    this.fileKey = 'main';
  }

  dispose(): void {
    void this.close();
  }

  /** Stops every read of the open file, its watch, and closes it. */
  private async close(): Promise<void> {
    this.abort.abort();
    this.abort = new AbortController();
    this.live?.dispose();
    this.live = undefined;
    const opened = this.opened;
    this.opened = undefined;
    await opened?.close();
  }

  private postStatus(status: TranscriptStatus): void {
    this.ctx.post({
      type: 'transcriptStatus',
      fileKey: this.fileKey,
      files: this.opened?.files ?? [],
      status,
    });
  }

  private postReady(): void {
    const info = this.opened?.source.info();
    if (!info) return;
    this.postStatus({
      state: 'ready',
      entryCount: info.entryCount,
      complete: info.complete,
      errorCount: info.errorCount,
      format: info.format,
    });
  }
}
